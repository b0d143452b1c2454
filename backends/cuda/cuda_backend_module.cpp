#include "backends/cuda/cuda_backend_module.hpp"

#include "backends/cuda/cuda_dense.hpp"

#include <cstring>
#include <exception>
#include <vector>

extern "C" {

int dtsim_cuda_backend_abi() { return DTSIM_CUDA_BACKEND_ABI; }

int dtsim_cuda_device_count() { return dtsim::cuda::device_count(); }

dtsim::models::DenseAccelerator* dtsim_cuda_make_dense(const std::size_t* widths, std::size_t count, int tanh,
                                                       char* error, std::size_t error_size) {
  // No exception may cross the C boundary into the loader.
  try {
    return dtsim::cuda::make_dense_accelerator(std::vector<std::size_t>(widths, widths + count), tanh != 0).release();
  } catch (const std::exception& e) {
    if (error != nullptr && error_size > 0) {
      std::strncpy(error, e.what(), error_size - 1);
      error[error_size - 1] = '\0';
    }
    return nullptr;
  }
}

}
