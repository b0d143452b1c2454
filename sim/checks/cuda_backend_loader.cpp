#include "sim/checks/cuda_backend_loader.hpp"

#include "sim/checks/library_symbol.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace dtsim::checks {
namespace {

constexpr const char* kModuleName = "libdtsim_cuda_backend.so";
constexpr int kAbi = 1;  // DTSIM_CUDA_BACKEND_ABI in backends/cuda/cuda_backend_module.hpp

/// Where to look for the module, in order: beside the executable (an installed or copied dtsim), then where
/// the build wrote it (tests and tools that link the app layer run from other folders).
std::vector<std::filesystem::path> candidates() {
  std::vector<std::filesystem::path> paths;
  std::error_code ignored;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ignored);
  if (!self.empty()) paths.push_back(self.parent_path() / kModuleName);
#ifdef DTSIM_CUDA_BACKEND_PATH
  paths.emplace_back(DTSIM_CUDA_BACKEND_PATH);
#endif
  return paths;
}

}  // namespace

std::unique_ptr<CudaBackendModule> CudaBackendModule::load(std::string& why) {
  std::error_code ignored;
  for (const std::filesystem::path& path : candidates()) {
    if (!std::filesystem::exists(path, ignored)) continue;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      why = fmt::format("the CUDA backend {} could not be loaded: {}", path.string(), error != nullptr ? error : "");
      return nullptr;
    }
    const auto abi = library_symbol<int (*)()>(handle, "dtsim_cuda_backend_abi");
    const auto device_count = library_symbol<DeviceCount>(handle, "dtsim_cuda_device_count");
    const auto make_dense = library_symbol<MakeDense>(handle, "dtsim_cuda_make_dense");
    if (abi == nullptr || device_count == nullptr || make_dense == nullptr || abi() != kAbi) {
      why = fmt::format("{} is not the CUDA backend of this dtsim (another version)", path.string());
      return nullptr;
    }
    return std::unique_ptr<CudaBackendModule>(new CudaBackendModule(device_count, make_dense));
  }
  why = "this dtsim was built without the CUDA backend (no nvcc when it was built)";
  return nullptr;
}

int CudaBackendModule::device_count() const { return device_count_(); }

std::unique_ptr<models::DenseAccelerator> CudaBackendModule::make_dense(const std::vector<std::size_t>& widths,
                                                                        bool tanh) const {
  std::array<char, 512> error{};
  models::DenseAccelerator* made = make_dense_(widths.data(), widths.size(), tanh ? 1 : 0, error.data(), error.size());
  if (made == nullptr) throw std::runtime_error(fmt::format("CUDA backend: {}", error.data()));
  return std::unique_ptr<models::DenseAccelerator>(made);
}

}  // namespace dtsim::checks
