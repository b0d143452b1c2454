#pragma once
// The CUDA backend as the models see it: a DenseAccelerator computing on the GPU.

#include "backends/cuda/dense_kernels.hpp"
#include "models/dense_accelerator.hpp"

#include <memory>
#include <vector>

namespace dtsim::cuda {

/// A dense classifier of these layer widths (features, hidden..., classes) on device 0.
std::unique_ptr<models::DenseAccelerator> make_dense_accelerator(std::vector<std::size_t> widths, bool tanh);

}  // namespace dtsim::cuda
