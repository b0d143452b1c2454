#pragma once
// Finds and loads the CUDA backend module (libdtsim_cuda_backend.so) on first use: beside the running
// executable, else where this build put it. Nothing CUDA is loaded by a run that does not compute on CUDA.

#include "models/dense_accelerator.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dtsim::checks {

/// The loaded module's entry points. Loading never unloads: accelerators it made may live to the end.
class CudaBackendModule {
 public:
  /// Loads the module, or returns null with the reason in `why` (no module in this build, or it failed to
  /// load: a missing CUDA runtime, another version of the module).
  static std::unique_ptr<CudaBackendModule> load(std::string& why);

  [[nodiscard]] int device_count() const;
  /// A dense classifier of these layer widths on device 0; throws std::runtime_error on failure.
  [[nodiscard]] std::unique_ptr<models::DenseAccelerator> make_dense(const std::vector<std::size_t>& widths,
                                                                     bool tanh) const;

 private:
  using DeviceCount = int (*)();
  using MakeDense = models::DenseAccelerator* (*)(const std::size_t*, std::size_t, int, char*, std::size_t);
  CudaBackendModule(DeviceCount count, MakeDense make) : device_count_(count), make_dense_(make) {}
  DeviceCount device_count_;
  MakeDense make_dense_;
};

}  // namespace dtsim::checks
