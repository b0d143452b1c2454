#pragma once
// The CUDA backend's entry points as a loadable module (libdtsim_cuda_backend.so). dtsim loads it only when
// a run computes on CUDA, so that a run, a sweep point or `dtsim --version` without CUDA never pays for
// loading the CUDA runtime and cuBLAS (about 0.4 s and 200 MB).

#include "models/dense_accelerator.hpp"

#include <cstddef>

/// Bumped whenever a signature below changes; the loader refuses a module of another version.
#define DTSIM_CUDA_BACKEND_ABI 1

#define DTSIM_CUDA_EXPORT __attribute__((visibility("default")))

extern "C" {
/// DTSIM_CUDA_BACKEND_ABI of the module.
DTSIM_CUDA_EXPORT int dtsim_cuda_backend_abi();
/// CUDA devices visible to this process (0 where the driver or a device is missing).
DTSIM_CUDA_EXPORT int dtsim_cuda_device_count();
/// A dense classifier of `count` layer widths (features, hidden..., classes) on device 0; the caller owns it.
/// Null on failure, with the reason in `error` (up to `error_size` bytes, terminated).
DTSIM_CUDA_EXPORT dtsim::models::DenseAccelerator* dtsim_cuda_make_dense(const std::size_t* widths, std::size_t count,
                                                                         int tanh, char* error, std::size_t error_size);
}
