#pragma once
// Built-in device profiles that `cluster.device.name` can name without declaring numbers.

#include "sim/scenario/scenario.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::scenario {

/// The sustained fraction of the peak of a device with no published measurement and none declared: half,
/// between the lowest whole-model figure of the catalog (V100, 30%) and its dense products (74% to 79%).
inline constexpr double kAssumedEfficiency = 0.5;

struct CatalogDevice {
  DeviceProfile profile;
  std::string description;  ///< what the numbers describe, and their source
  /// The classes whose efficiency `dtsim calibrate` fitted on the validation tables' fit rows, where no
  /// microbenchmark gave one (device_catalog.cpp names the rows).
  std::array<bool, models::kOpClasses> fitted{};
};

/// Every built-in device, by name.
const std::vector<CatalogDevice>& builtin_devices();
std::optional<DeviceProfile> find_builtin_device(const std::string& name);
std::vector<std::string> builtin_device_names();

/// Whether training frameworks run attention fused on the built-in device `name` (FlashAttention: FlashAttention-2
/// runs on Ampere, Ada and Hopper GPUs, and neither it nor the first FlashAttention on Volta or Pascal; Dao
/// et al. 2022 and 2023, the flash-attention README): the a100, h100 and h200. False for every other name, a
/// declared device's included.
bool frameworks_fuse_attention(const std::string& name);

}  // namespace dtsim::scenario
