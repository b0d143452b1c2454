#include "sim/scenario/device_catalog.hpp"

#include <algorithm>

namespace dtsim::scenario {
namespace {

CatalogDevice device(std::string name, double peak_flops, double half_flops, double memory_bandwidth,
                     double memory_bytes, double max_watts, double efficiency, std::string description) {
  DeviceProfile profile;
  profile.name = std::move(name);
  profile.efficiency = efficiency;
  profile.peak_flops = core::FlopsPerSecond(peak_flops);
  if (half_flops > 0) profile.half_flops = core::FlopsPerSecond(half_flops);
  profile.memory_bandwidth = core::BytesPerSecond(memory_bandwidth);
  if (memory_bytes > 0) profile.memory = core::Bytes(memory_bytes);
  profile.busy_power = core::Watts(max_watts);
  // Data sheets give no idle power: it stays unset until a profile declares it.
  return CatalogDevice{std::move(profile), std::move(description)};
}

constexpr double kGiB = 1073741824.0;

}  // namespace

const std::vector<CatalogDevice>& builtin_devices() {
  static const std::vector<CatalogDevice> devices{
      // Intel Xeon Platinum 8380 product brief: 40 cores at 2.3 GHz base, two AVX-512 FMA units per core
      // (32 FP32 FLOP per cycle), eight DDR4-3200 channels (8 x 25.6 GB/s), 270 W TDP. No FP16/BF16 units.
      // No published sustained training figure: efficiency 1 (peak) until a scenario declares one.
      device("cpu", 40 * 2.3e9 * 32, 0, 8 * 25.6e9, 0, 270, 1.0,
             "one Intel Xeon Platinum 8380 socket: FP32 AVX-512 peak, DDR4-3200 x8, 270 W TDP"),
      // NVIDIA Tesla P100 data sheet (SXM2, 16 GB): 10.6 TFLOPS FP32, 21.2 TFLOPS FP16 (no tensor cores),
      // 732 GB/s HBM2, 300 W.
      // No published sustained training figure: efficiency 1 (peak) until a scenario declares one.
      device("p100", 10.6e12, 21.2e12, 732e9, 16 * kGiB, 300, 1.0, "NVIDIA P100 SXM2 16 GB: FP32 and FP16 peaks, HBM2, 300 W"),
      // NVIDIA Tesla V100 data sheet (SXM2, 32 GB): 15.7 TFLOPS FP32, 125 TFLOPS tensor (FP16), 900 GB/s
      // HBM2, 300 W. Sustained: Shoeybi et al. 2019 (Megatron-LM), a single V100 training GPT-2-style models
      // in mixed precision at 39 TFLOPS, "30% of peak FLOPs".
      device("v100", 15.7e12, 125e12, 900e9, 32 * kGiB, 300, 0.30,
             "NVIDIA V100 SXM2 32 GB: FP32 and FP16 tensor peaks, HBM2, 300 W"),
      // NVIDIA A100 data sheet (80 GB SXM): 19.5 TFLOPS FP32, 312 TFLOPS FP16/BF16 tensor (dense; 624 with
      // sparsity), 2,039 GB/s HBM2e, 400 W. Sustained: Narayanan et al. 2021 (Megatron-LM on 3,072 A100s),
      // 163 TFLOPS per GPU, "52% of theoretical peak".
      device("a100", 19.5e12, 312e12, 2039e9, 80 * kGiB, 400, 0.52,
             "NVIDIA A100 SXM 80 GB: FP32 and dense FP16/BF16 tensor peaks, HBM2e, 400 W"),
      // NVIDIA H100 data sheet (SXM): 67 TFLOPS FP32, 1,979 TFLOPS FP16/BF16 tensor with sparsity, so 989.5
      // dense; 3.35 TB/s HBM3, 80 GB, up to 700 W. Sustained: Dubey et al. 2024 (Llama 3, table 4), BF16 model
      // FLOPs utilization of 38% to 43% on 8,192 to 16,384 H100s: 0.40.
      device("h100", 67e12, 989.5e12, 3.35e12, 80 * kGiB, 700, 0.40,
             "NVIDIA H100 SXM 80 GB: FP32 and dense FP16/BF16 tensor peaks, HBM3, 700 W"),
      // NVIDIA H200 data sheet (SXM): 67 TFLOPS FP32, 1,979 TFLOPS FP16/BF16 tensor with sparsity (989.5
      // dense), 4.8 TB/s HBM3e, 141 GB, up to 700 W. Sustained: the H100's 0.40 (the same GPU, with more and
      // faster memory; no separate published figure).
      device("h200", 67e12, 989.5e12, 4.8e12, 141e9, 700, 0.40,
             "NVIDIA H200 SXM 141 GB: FP32 and dense FP16/BF16 tensor peaks, HBM3e, 700 W"),
  };
  return devices;
}

std::optional<DeviceProfile> find_builtin_device(const std::string& name) {
  const auto& all = builtin_devices();
  const auto it = std::find_if(all.begin(), all.end(), [&](const CatalogDevice& d) { return d.profile.name == name; });
  if (it == all.end()) return std::nullopt;
  return it->profile;
}

std::vector<std::string> builtin_device_names() {
  std::vector<std::string> names;
  for (const auto& d : builtin_devices()) names.push_back(d.profile.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dtsim::scenario
