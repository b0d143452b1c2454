#pragma once
// A dense classifier's forward and backward pass on a CUDA device: cuBLAS products and a few kernels.
// C++17 and the CUDA toolkit only, so that nvcc compiles it wherever it is installed.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dtsim::cuda {

/// The CUDA devices this process sees (0 without a driver or a device), and the first one's name.
int device_count();
std::string device_name();

class DenseKernels {
 public:
  /// Layer widths features, hidden..., classes; `tanh` for tanh hidden layers, else relu. Uses device 0;
  /// throws std::runtime_error when CUDA fails (no device, out of memory).
  DenseKernels(std::vector<std::size_t> widths, bool tanh);
  DenseKernels(const DenseKernels&) = delete;
  DenseKernels& operator=(const DenseKernels&) = delete;
  ~DenseKernels();

  [[nodiscard]] std::size_t parameter_count() const;
  /// Mean softmax cross-entropy of `rows` samples (`inputs` rows x features, row-major; `labels` their
  /// classes) under `parameters` (per layer its out x in weights, row-major, then its biases), and the mean
  /// gradient into `gradient` (parameter_count() floats). The softmax and the loss are computed in double,
  /// and the per-sample losses summed in sample order on the host, as the CPU does.
  double loss_and_gradient(const float* parameters, const float* inputs, const int* labels, std::size_t rows,
                           float* gradient);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dtsim::cuda
