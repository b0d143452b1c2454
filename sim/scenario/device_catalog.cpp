#include "sim/scenario/device_catalog.hpp"

#include <algorithm>

namespace dtsim::scenario {
namespace {

constexpr double kGiB = 1073741824.0;

/// Sustained fractions of the peak by class (gemm, attention, convolution, elementwise); absent where no
/// measurement was published, so that the documented default applies and the run says so.
struct Measured {
  std::optional<double> gemm, attention, convolution, elementwise;
  std::array<bool, models::kOpClasses> fitted{};  ///< by class: fitted on validation fit rows
};

/// Watts drawn idle and at full load (busy: the data sheet's maximum).
struct Power {
  double idle;
  double busy;
};

CatalogDevice device(std::string name, double peak_flops, double half_flops, double memory_bandwidth,
                     double memory_bytes, int multiprocessors, Power watts, const Measured& measured,
                     std::string description) {
  DeviceProfile profile;
  profile.name = std::move(name);
  profile.efficiency = kAssumedEfficiency;
  profile.efficiency_assumed = true;
  profile.class_efficiency = {measured.gemm, measured.attention, measured.convolution, measured.elementwise};
  profile.peak_flops = core::FlopsPerSecond(peak_flops);
  if (half_flops > 0) profile.half_flops = core::FlopsPerSecond(half_flops);
  profile.memory_bandwidth = core::BytesPerSecond(memory_bandwidth);
  if (memory_bytes > 0) profile.memory = core::Bytes(memory_bytes);
  if (multiprocessors > 0) profile.multiprocessors = multiprocessors;
  profile.idle_power = core::Watts(watts.idle);
  profile.busy_power = core::Watts(watts.busy);
  // communication_power stays unset: no per-device figure is published, DeviceProfile::communication_draw()
  // takes the documented midpoint.
  return CatalogDevice{std::move(profile), std::move(description), measured.fitted};
}

}  // namespace

// Power, idle and busy (busy: the data sheet's maximum board power, cited at each device). Idle, where
// measured:
// - H100 SXM 75 W and A100 SXM 80 GB 63 W: the idle power of the power model of Splitwise's simulator
//   (Patel et al., "Splitwise", ISCA 2024; github.com/Mutinifni/splitwise-sim, configs/power_model/
//   constant.yaml: "idle_power: a100-80gb: 63, h100-80gb: 75").
// - V100 SXM2: 57 W, nvidia-smi's reading of a V100-SXM2 with no process (github.com/NVIDIA/nvidia-docker
//   issue 1076: "Power Draw : 56.58 W ... Processes : None"), one reading, rounded.
// No idle figure was found published for the P100, the H200 and the Xeon 8380: the P100 and the CPU take
// the V100's idle share of its maximum (57 / 300 = 19%), the H200 the H100's 75 W (the same GH100 chip);
// these are assumptions, and a scenario may declare its own (cluster.device.idle_power).
// What a device draws while its messages move (collective kernels copying and reducing) has no published
// per-device figure: see DeviceProfile::communication_draw(). None of these powers is fitted: each is taken
// as its source gives it (no validation row, fit or test, measures energy, and no row moved any of them).
// Streaming multiprocessors, from NVIDIA's architecture whitepapers: P100 (SXM2) 56, V100 (SXM2) 80, A100 108,
// H100 SXM5 132; the H200 is the same GH100 configuration as the H100 SXM5: 132.
// Sustained efficiencies, by class:
// - gemm: large FP16/BF16 matrix products timed alone. V100 95 and A100 230 TFLOPS measured by
//   github.com/mli/transformers-benchmarks (micro_bench.ipynb, "Matrix Multiplication FP16"): 0.76 of 125 and
//   0.74 of 312. The H100's is fitted (named at the H100 below): a product timed alone reaches 780 TFLOPS BF16
//   there (torch.mm of 4224 x 8192 by 8192 x 2048, gist.github.com/Chillee/2ec89696db8b7ed1c24461159e325405:
//   0.79 of 989.5), which training does not.
// - attention: FlashAttention-2 (Dao 2023) reaches "50-73% of the theoretical maximum FLOPs/s on A100": 0.50,
//   the lower end, the backward pass being two thirds of the FLOPs and the slower; on H100 FlashAttention-3
//   (Shah et al. 2024) reports FlashAttention-2 at 35% utilization: 0.35.
// - convolution: ResNet-50 v1.5 training throughput on one GPU, mixed precision, batch 256, from NVIDIA's
//   DeepLearningExamples (PyTorch/Classification/ConvNets/resnet50v1.5/README.md, pytorch-21.03 container):
//   A100 80GB 2,470 img/s, V100 16GB 1,200 img/s, turned into the convolution efficiency that gives those
//   times with this catalog's other figures. Fitted on the fit rows of scenarios/validation/
//   resnet50-single-gpu.csv (resnet50-a100-x1, resnet50-v100-x1: `dtsim calibrate
//   scenarios/validation/resnet50-single-gpu.csv --fit a100.convolution --fit v100.convolution`); no test row
//   of published.csv took part.
// gemm, attention and elementwise are taken from their microbenchmarks as published: fitted to no validation
// row, fit or test; except the V100's attention, which has none and is fitted on the V100 fit rows of
// published.csv (named at the V100 below; no test row took part), and the H100's gemm, fitted on the H100 fit
// rows (named at the H100).
// - elementwise: memory-bound (an add-norm does 0.75 FLOPs per byte, the ridge of an A100 is 153), so its
//   efficiency is the fraction of the data sheet's memory bandwidth such kernels sustain, which every
//   layer's memory traffic moves at. Measured by the same notebook ("VectorMul", a * 1.2 on 4M floats, 8
//   bytes per element): A100 0.202 TFLOPS, 1,616 GB/s of 2,039 (0.79); V100 0.098 TFLOPS, 784 GB/s of 900
//   (0.87). H100 and H200: BabelStream's Mul, the same kernel, as Azure/AI-benchmarking-guide publishes it
//   (cited at each), taken as published: fitted to no validation row.
const std::vector<CatalogDevice>& builtin_devices() {
  static const std::vector<CatalogDevice> devices{
      // Intel Xeon Platinum 8380 product brief: 40 cores at 2.3 GHz base, two AVX-512 FMA units per core
      // (32 FP32 FLOP per cycle), eight DDR4-3200 channels (8 x 25.6 GB/s), 270 W TDP. No FP16/BF16 units.
      // No published sustained training figure: the default applies.
      device("cpu", 40 * 2.3e9 * 32, 0, 8 * 25.6e9, 0, 0, {0.19 * 270, 270}, {},
             "one Intel Xeon Platinum 8380 socket: FP32 AVX-512 peak, DDR4-3200 x8, 270 W TDP"),
      // NVIDIA Tesla P100 data sheet (SXM2, 16 GB): 10.6 TFLOPS FP32, 21.2 TFLOPS FP16 (no tensor cores),
      // 732 GB/s HBM2, 300 W. No published sustained training figure: the default applies.
      device("p100", 10.6e12, 21.2e12, 732e9, 16 * kGiB, 56, {0.19 * 300, 300}, {}, "NVIDIA P100 SXM2 16 GB: FP32 and FP16 peaks, HBM2, 300 W"),
      // NVIDIA Tesla V100 data sheet (SXM2, 32 GB): 15.7 TFLOPS FP32, 125 TFLOPS tensor (FP16), 900 GB/s
      // HBM2, 300 W. No FlashAttention on V100, and no published measurement of its attention: 0.2613 is
      // fitted on the V100 fit rows of scenarios/validation/published.csv (megatron2020-gpt-1b-v100-x1,
      // megatron2020-gpt-4b-v100-x4, bert-large-v100-s128-x1; `dtsim calibrate` on those rows with `--fit
      // v100.attention`), and judged by its V100 test rows, which took no part.
      device("v100", 15.7e12, 125e12, 900e9, 32 * kGiB, 80, {57, 300},
             {.gemm = 0.76, .attention = 0.2613, .convolution = 0.2503, .elementwise = 0.87, .fitted = {false, true, true, false}},
             "NVIDIA V100 SXM2 32 GB: FP32 and FP16 tensor peaks, HBM2, 300 W"),
      // NVIDIA A100 data sheet (80 GB SXM): 19.5 TFLOPS FP32, 312 TFLOPS FP16/BF16 tensor (dense; 624 with
      // sparsity), 2,039 GB/s HBM2e, 400 W.
      device("a100", 19.5e12, 312e12, 2039e9, 80 * kGiB, 108, {63, 400},
             {.gemm = 0.74, .attention = 0.50, .convolution = 0.2064, .elementwise = 0.79, .fitted = {false, false, true, false}},
             "NVIDIA A100 SXM 80 GB: FP32 and dense FP16/BF16 tensor peaks, HBM2e, 400 W"),
      // NVIDIA H100 data sheet (SXM): 67 TFLOPS FP32, 1,979 TFLOPS FP16/BF16 tensor with sparsity, so 989.5
      // dense; 3.35 TB/s HBM3, 80 GB, up to 700 W. No published ResNet-50 figure of the same kind: convolution
      // has none. Elementwise: BabelStream's Mul (a = scalar x b, the VectorMul kernel of the A100's figure) on
      // "NVIDIA H100 80GB HBM3" (the SXM part) of an Azure ND H100 v5, 10.5 GB arrays: 2.90 TB/s of 3.35
      // (Azure/AI-benchmarking-guide at 8fd0c6e1bd0f853ef8f0500a3640a7d80a2a92ef, Azure_Results/
      // ND_H100_v5_results.md); the same guide's A100-SXM4-80GB Mul, 1.61 TB/s, agrees with the A100's 0.79.
      // Gemm: 0.6196, fitted on the H100 fit rows of scenarios/validation/published.csv (megatron-core-gpt-1_7b,
      // -16b, -70b and -177b-h100; `dtsim calibrate` on those rows with `--fit h100.gemm`), judged by its H100
      // test rows, which took no part, with each product's shape factor on top (sim/compute/gemm_shape.cpp;
      // 0.6388 before it): these runs go slower than their products alone do (0.79 of one large product
      // timed alone, Chillee's gist; 0.695 at 8192^3 in dtsim's own grid, bench/device/gemm_shapes.py), with
      // which these rows were 9-17% fast; the fit stands for what the model leaves out of them.
      device("h100", 67e12, 989.5e12, 3.35e12, 80 * kGiB, 132, {75, 700},
             {.gemm = 0.6196, .attention = 0.35, .convolution = std::nullopt, .elementwise = 2.90 / 3.35,
              .fitted = {true, false, false, false}},
             "NVIDIA H100 SXM 80 GB: FP32 and dense FP16/BF16 tensor peaks, HBM3, 700 W"),
      // NVIDIA H200 data sheet (SXM): 67 TFLOPS FP32, 1,979 TFLOPS FP16/BF16 tensor with sparsity (989.5
      // dense), 4.8 TB/s HBM3e, 141 GB, up to 700 W. The same GPU as the H100 with more and faster memory: the
      // H100's compute figures (its gemm fitted on the H100 fit rows megatron-core-gpt-1_7b, -16b, -70b and -177b-h100;
      // no H200 training row exists); elementwise:
      // the same guide's BabelStream Mul on "NVIDIA H200 141GB" of an Azure ND H200 v5
      // (Azure_Results/ND_H200_v5_results.md): 4.00 TB/s of 4.8.
      device("h200", 67e12, 989.5e12, 4.8e12, 141e9, 132, {75, 700},
             {.gemm = 0.6196, .attention = 0.35, .convolution = std::nullopt, .elementwise = 4.00 / 4.8,
              .fitted = {true, false, false, false}},
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

bool frameworks_fuse_attention(const std::string& name) {
  return name == "a100" || name == "h100" || name == "h200";
}

std::vector<std::string> builtin_device_names() {
  std::vector<std::string> names;
  for (const auto& d : builtin_devices()) names.push_back(d.profile.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dtsim::scenario
