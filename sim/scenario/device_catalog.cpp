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

/// Dense peaks (FLOP/s) by the precision of the products' inputs: FP32 (vector), FP16/BF16, FP8 and FP4 (tensor
/// cores); 0 where the device has no such units.
struct Peaks {
  double fp32;
  double half = 0;
  double fp8 = 0;
  double fp4 = 0;
};

CatalogDevice device(std::string name, Peaks peaks, double memory_bandwidth, double memory_bytes,
                     int multiprocessors, Power watts, const Measured& measured, std::string description) {
  DeviceProfile profile;
  profile.name = std::move(name);
  profile.efficiency = kAssumedEfficiency;
  profile.efficiency_assumed = true;
  profile.class_efficiency = {measured.gemm, measured.attention, measured.convolution, measured.elementwise};
  profile.peak_flops = core::FlopsPerSecond(peaks.fp32);
  if (peaks.half > 0) profile.half_flops = core::FlopsPerSecond(peaks.half);
  if (peaks.fp8 > 0) profile.fp8_flops = core::FlopsPerSecond(peaks.fp8);
  if (peaks.fp4 > 0) profile.fp4_flops = core::FlopsPerSecond(peaks.fp4);
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
namespace {

/// The CPU and NVIDIA's GPUs up to Hopper's H100 and H200: the devices the dense validation rows ran on.
std::vector<CatalogDevice> validated_devices() {
  return {
      // Intel Xeon Platinum 8380 product brief: 40 cores at 2.3 GHz base, two AVX-512 FMA units per core
      // (32 FP32 FLOP per cycle), eight DDR4-3200 channels (8 x 25.6 GB/s), 270 W TDP. No FP16/BF16 units.
      // No published sustained training figure: the default applies.
      device("cpu", {40 * 2.3e9 * 32}, 8 * 25.6e9, 0, 0, {0.19 * 270, 270}, {},
             "one Intel Xeon Platinum 8380 socket: FP32 AVX-512 peak, DDR4-3200 x8, 270 W TDP"),
      // NVIDIA Tesla P100 data sheet (SXM2, 16 GB): 10.6 TFLOPS FP32, 21.2 TFLOPS FP16 (no tensor cores),
      // 732 GB/s HBM2, 300 W. No published sustained training figure: the default applies.
      device("p100", {10.6e12, 21.2e12}, 732e9, 16 * kGiB, 56, {0.19 * 300, 300}, {}, "NVIDIA P100 SXM2 16 GB: FP32 and FP16 peaks, HBM2, 300 W"),
      // NVIDIA Tesla V100 data sheet (SXM2, 32 GB): 15.7 TFLOPS FP32, 125 TFLOPS tensor (FP16), 900 GB/s
      // HBM2, 300 W. No FlashAttention on V100, and no published measurement of its attention: 0.2613 is
      // fitted on the V100 fit rows of scenarios/validation/published.csv (megatron2020-gpt-1b-v100-x1,
      // megatron2020-gpt-4b-v100-x4, bert-large-v100-s128-x1; `dtsim calibrate` on those rows with `--fit
      // v100.attention`), and judged by its V100 test rows, which took no part.
      device("v100", {15.7e12, 125e12}, 900e9, 32 * kGiB, 80, {57, 300},
             {.gemm = 0.76, .attention = 0.2613, .convolution = 0.2503, .elementwise = 0.87, .fitted = {false, true, true, false}},
             "NVIDIA V100 SXM2 32 GB: FP32 and FP16 tensor peaks, HBM2, 300 W"),
      // NVIDIA A100 data sheet (80 GB SXM): 19.5 TFLOPS FP32, 312 TFLOPS FP16/BF16 tensor (dense; 624 with
      // sparsity), 2,039 GB/s HBM2e, 400 W.
      device("a100", {19.5e12, 312e12}, 2039e9, 80 * kGiB, 108, {63, 400},
             {.gemm = 0.74, .attention = 0.50, .convolution = 0.2064, .elementwise = 0.79, .fitted = {false, false, true, false}},
             "NVIDIA A100 SXM 80 GB: FP32 and dense FP16/BF16 tensor peaks, HBM2e, 400 W"),
      // NVIDIA H100 data sheet (SXM): 67 TFLOPS FP32, 1,979 TFLOPS FP16/BF16 tensor with sparsity, so 989.5
      // dense; 3,958 TFLOPS FP8 with sparsity, so 1,979 dense; 3.35 TB/s HBM3, 80 GB, up to 700 W. No published ResNet-50 figure of the same kind: convolution
      // has none. Elementwise: BabelStream's Mul (a = scalar x b, the VectorMul kernel of the A100's figure) on
      // "NVIDIA H100 80GB HBM3" (the SXM part) of an Azure ND H100 v5, 10.5 GB arrays: 2.90 TB/s of 3.35
      // (Azure/AI-benchmarking-guide at 8fd0c6e1bd0f853ef8f0500a3640a7d80a2a92ef, Azure_Results/
      // ND_H100_v5_results.md); the same guide's A100-SXM4-80GB Mul, 1.61 TB/s, agrees with the A100's 0.79.
      // Gemm: 0.6330, fitted on the H100 fit rows of scenarios/validation/published.csv (megatron-core-gpt-1_7b,
      // -16b, -70b and -177b-h100; `dtsim calibrate` on those rows with `--fit h100.gemm`), judged by its H100
      // test rows, which took no part, with each product's shape factor on top (sim/compute/gemm_shape.cpp;
      // 0.6388 before it), the rows in BF16 as Megatron-LM runs --bf16, their gradients reduced in FP32
      // (0.6196 while those were counted in 16 bits), fused attention keeping no scores and recomputing
      // them in its backward pass and every row without recomputation, which then fits (0.6580 while fused
      // attention kept its scores and rows from 70B on recomputed them): these runs go slower than their products alone do (0.79
      // of one large product timed alone, Chillee's gist; 0.695 at 8192^3 in dtsim's own grid,
      // bench/device/gemm_shapes.py), with which these rows were 9-17% fast; the fit stands for what the model
      // leaves out of them.
      device("h100", {67e12, 989.5e12, 1979e12}, 3.35e12, 80 * kGiB, 132, {75, 700},
             {.gemm = 0.6330, .attention = 0.35, .convolution = std::nullopt, .elementwise = 2.90 / 3.35,
              .fitted = {true, false, false, false}},
             "NVIDIA H100 SXM 80 GB: FP32 and dense FP16/BF16 and FP8 tensor peaks, HBM3, 700 W"),
      // NVIDIA H200 data sheet (SXM): 67 TFLOPS FP32, 1,979 TFLOPS FP16/BF16 tensor with sparsity (989.5
      // dense), 3,958 FP8 with sparsity (1,979 dense), 4.8 TB/s HBM3e, 141 GB, up to 700 W. The same GPU as the H100 with more and faster memory: the
      // H100's compute figures (its gemm fitted on the H100 fit rows megatron-core-gpt-1_7b, -16b, -70b and -177b-h100;
      // no H200 training row exists); elementwise:
      // the same guide's BabelStream Mul on "NVIDIA H200 141GB" of an Azure ND H200 v5
      // (Azure_Results/ND_H200_v5_results.md): 4.00 TB/s of 4.8.
      device("h200", {67e12, 989.5e12, 1979e12}, 4.8e12, 141e9, 132, {75, 700},
             {.gemm = 0.6330, .attention = 0.35, .convolution = std::nullopt, .elementwise = 4.00 / 4.8,
              .fitted = {true, false, false, false}},
             "NVIDIA H200 SXM 141 GB: FP32 and dense FP16/BF16 and FP8 tensor peaks, HBM3e, 700 W"),
  };
}

// Devices of 2024-2026 (Hopper's export parts, Blackwell, AMD Instinct). Their peaks are the vendors' dense
// figures (a sparse figure halved where only it is printed), their sustained fractions taken from a published
// microbenchmark where one exists, else the documented default, which the run notes; the B200's gemm is fitted
// on the Blackwell fit rows (scenarios/validation/blackwell.csv), which judge the B200 and the GB200 with their
// test rows; no row judges the others yet. No idle power is published for any of them: each takes the H100's
// idle share of its maximum (75 / 700 W), an assumption a scenario may replace (cluster.devices.<name>.idle_power).
constexpr double kAssumedIdleShare = 75.0 / 700.0;

Power assumed_idle(double busy) { return {kAssumedIdleShare * busy, busy}; }

/// Hopper's parts for China: no NVIDIA data sheet exists for either; the figures are third parties'.
std::vector<CatalogDevice> hopper_export_devices() {
  return {
      // H800 SXM: the H100 SXM's GH100 with NVLink cut to 400 GB/s (qiangchuan.com's H800 page: "FP32 67
      // TFLOPS", "Tensor BF16/FP16 1,979 TFLOPS*" with sparsity, "80GB HBM3 ... 3.35 TB/s", "700W"); FP8 not
      // listed there, the H100's 1,979 dense (DeepGEMM reaches "up to 1550 TFLOPS on H800" in FP8, 0.78 of it).
      // 132 SMs (DeepGEMM's and others' measurement logs). The H100's sustained fractions (the same chip).
      device("h800", {67e12, 989.5e12, 1979e12}, 3.35e12, 80 * kGiB, 132, {75, 700},
             {.gemm = 0.6330, .attention = 0.35, .convolution = std::nullopt, .elementwise = 2.90 / 3.35,
              .fitted = {true, false, false, false}},
             "NVIDIA H800 SXM 80 GB: the H100's peaks and memory, NVLink cut to 400 GB/s, 700 W"),
      // H20: Baidu Baike's H20 entry (NVIDIA publishes none): "FP32 44 TFLOPS", "BF16 | FP16 Tensor Core 148",
      // "INT8 | FP8 Tensor Core* 296", "96GB HBM3", "4.0 TB/s", "400W"; 148 taken as dense, as LLM-Prof's
      // hardware table does (the entry's asterisk is ambiguous). 78 SMs (measurement logs).
      device("h20", {44e12, 148e12, 296e12}, 4.0e12, 96 * kGiB, 78, assumed_idle(400), {},
             "NVIDIA H20 96 GB: FP32, BF16 and FP8 peaks (third-party figures), HBM3, 400 W"),
  };
}

/// Blackwell (B200, GB200) and Blackwell Ultra (B300, GB300): FP4 tensor cores, MXFP8 scaled in hardware.
std::vector<CatalogDevice> blackwell_devices() {
  return {
      // B200 (HGX/DGX B200, 8 GPUs): NVIDIA's HGX page, "FP32 600 TFLOPS", "FP16/BF16 Tensor Core* 36
      // PFLOPS", "FP8/FP6 72 PFLOPS" (*with sparsity), FP4 "144 | 72 PFLOPS" (sparse | dense) for 8 GPUs; DGX
      // B200: "1,440 GB total HBM3e memory and 64 TB/s"; 148 SMs (device-query logs); "B200 TGP 1000W" (MLPerf
      // Training v6.0, Nebius's system description). Attention: cuDNN's fused attention (9.13.0, through PyTorch
      // 2.9 nv25.09) at sequences of 8,192, 128 query heads of 128 over 8 key-value heads, causal, BF16: forward
      // 1.877 ms, backward 5.833 ms, 1,171.3 TFLOPS forward by its count (the backward 2.5 times the forward's
      // FLOPs), 998 TFLOPS for both, 0.444 of 2,250 (NVIDIA/cudnn-frontend at
      // bb37575d103b9974bc619a193dc1a96d835dc117, benchmark/sdpa_benchmark_training/artifacts/
      // sdpa_bf16_benchmark_results_NVIDIA_B200.csv, pyt_cudnn). Elementwise: nvbench's DeviceTransform "add", F16,
      // 2^28 elements, 6.721 TB/s of 8 (github.com/NVIDIA/cccl/pull/7391, "[0] NVIDIA B200"). Gemm: 0.5592,
      // fitted on the B200 fit rows of scenarios/validation/blackwell.csv (bridge-llama3-8b-b200-fp8-x8-2509,
      // -mxfp8-x8-2509, bridge-llama31-405b-b200-fp8-x128-2509, -mxfp8-x128-2509: the 25.09 release's; `dtsim
      // calibrate scenarios/validation/blackwell.csv --fit b200.gemm`, with the attention and elementwise above),
      // judged by its later releases' test rows, which took no part. A product timed alone reaches more: 1,420
      // TFLOPS BF16 at 8192^3 through nn.Linear, 0.631 (github.com/pytorch/ao/pull/2427, "gpu_name: NVIDIA B200"),
      // which training does not, as on the H100.
      device("b200", {75e12, 2250e12, 4500e12, 9000e12}, 8e12, 180e9, 148, assumed_idle(1000),
             {.gemm = 0.5592, .attention = 998.0 / 2250.0, .convolution = std::nullopt, .elementwise = 6.721 / 8.0,
              .fitted = {true, false, false, false}},
             "NVIDIA B200 180 GB: FP32 and dense BF16, FP8 and FP4 tensor peaks, HBM3e, 1,000 W"),
      // GB200 (a GB200 NVL72's GPU): NVIDIA's GB200 NVL72 page per superchip (1 Grace, 2 GPUs), "FP32 160
      // TFLOPS", "FP16/BF16 10 PFLOPS", "FP8/FP6 20 PFLOPS" (sparse: "Dense is one-half sparse spec shown"),
      // "NVFP4 40 / 20 PFLOPS", "372 GB HBM3e / 16 TB/s"; 1,200 W in the GB200 configuration. 152 SMs on one
      // report only. Gemm: cuBLASLt FP8 at 16384^3 on Azure's ND GB200 v6, 2,906.9 TFLOPS of 5,000 (Azure/
      // AI-benchmarking-guide at 2a370be6de9586d365feed77e014a73f25198f4d, Azure_Results/ND_GB200_v6_results.md).
      // Attention: cuDNN's fused attention (cudnn_fe) at sequences of 8,192, 128 query heads of 128 over 8
      // key-value heads, causal, BF16: forward 1.389 ms, backward 4.542 ms, 1,584 TFLOPS forward by its count
      // (the backward 2.5 times the forward's FLOPs), 1,299 TFLOPS for both, 0.519 of 2,500 (NVIDIA/cudnn-frontend
      // at d48a60eb146eada7aee2e00b8f8c1d6ddcf96c51, benchmark/sdpa_benchmark_training/artifacts/
      // sdpa_bf16_benchmark_results_NVIDIA_GB200.csv).
      device("gb200", {80e12, 2500e12, 5000e12, 10000e12}, 8e12, 186e9, 152, assumed_idle(1200),
             {.gemm = 2906.9 / 5000.0, .attention = 1299.0 / 2500.0, .convolution = std::nullopt, .elementwise = std::nullopt},
             "NVIDIA GB200 (NVL72) 186 GB: FP32 and dense BF16, FP8 and FP4 tensor peaks, HBM3e, 1,200 W"),
      // B300 (HGX B300): the Blackwell Ultra data sheet's HGX column, "FP32 75 TFLOPS", "FP16/BF16 4.5
      // PFLOPS", "FP8/FP6 9 PFLOPS" (sparse), "FP4 18 | 14 PFLOPS" (sparse | dense), "270 GB HBM3E | 7.7
      // TB/s", "TDP up to 1,100W"; 160 SMs (NVIDIA's Blackwell Ultra blog, the full die).
      device("b300", {75e12, 2250e12, 4500e12, 14000e12}, 7.7e12, 270e9, 160, assumed_idle(1100), {},
             "NVIDIA B300 270 GB: FP32 and dense BF16, FP8 and FP4 tensor peaks, HBM3e, 1,100 W"),
      // GB300 (a GB300 NVL72's GPU): the data sheet's GB300 column, "FP32 80 TFLOPS", "FP16/BF16 5 PFLOPS",
      // "FP8/FP6 10 PFLOPS" (sparse), "279 GB HBM3E | 8 TB/s", "TDP up to 1,400W"; "15 PetaFLOPS dense NVFP4"
      // and 160 SMs (NVIDIA's Blackwell Ultra blog).
      device("gb300", {80e12, 2500e12, 5000e12, 15000e12}, 8e12, 279e9, 160, assumed_idle(1400), {},
             "NVIDIA GB300 (NVL72) 279 GB: FP32 and dense BF16, FP8 and FP4 tensor peaks, HBM3e, 1,400 W"),
  };
}

/// AMD Instinct (CDNA3 MI300X and MI325X, CDNA4 MI355X); their compute units stand where SMs are asked.
std::vector<CatalogDevice> instinct_devices() {
  return {
      // MI300X: ROCm's docs/conceptual/gpu-arch/mi300.md (ROCm/ROCm e396b4898f459db094bfd60b876f419f77eb9f09),
      // "Vector FP32 ... 163.4", "Matrix BF16 ... 1307.4", "Matrix FP8 ... 2614.9" TFLOPS, "5.3 TB per
      // second", 192 GB, 304 CUs; 750 W (MLPerf v4.1, "MI300X-NPS1-SPX-192GB-750W"). Gemm: AMD's measured
      // maximum achievable BF16 rate, 708 TFLOPS (rocm.blogs.amd.com, "measuring max achievable FLOPs", part
      // 2); elementwise: STREAM Triad 4.09 TB/s on Azure's ND MI300X v5 (AI-benchmarking-guide's results, a
      // fork's copy: samuel-bohman/AI-benchmarking-guide 3de0c294fd1059a91a2c158712c4a078619d73e8).
      device("mi300x", {163.4e12, 1307.4e12, 2614.9e12}, 5.3e12, 192e9, 304, assumed_idle(750),
             {.gemm = 708.0 / 1307.4, .attention = std::nullopt, .convolution = std::nullopt, .elementwise = 4.09 / 5.3},
             "AMD Instinct MI300X 192 GB: FP32 and dense BF16 and FP8 matrix peaks, HBM3, 750 W"),
      // MI325X: the MI300X's CDNA3 compute (ROCm's gpu-arch-specs: gfx942, 304 CUs, 256 GB) with HBM3E at 6
      // TB/s, about 1,000 W (third-party pages; AMD's data sheet not retrieved). Gemm: AMD's maximum achievable
      // BF16 rate, 843 TFLOPS (the same blog).
      device("mi325x", {163.4e12, 1307.4e12, 2614.9e12}, 6e12, 256e9, 304, assumed_idle(1000),
             {.gemm = 843.0 / 1307.4, .attention = std::nullopt, .convolution = std::nullopt, .elementwise = std::nullopt},
             "AMD Instinct MI325X 256 GB: FP32 and dense BF16 and FP8 matrix peaks, HBM3E, 1,000 W"),
      // MI355X: OLCF's Lux user guide ("288 GB of high-bandwidth memory (HBM3E) ... a peak of 8 TB/s", "256
      // compute units"), CDNA4's rates at 2.4 GHz: FP32 157.3, BF16 2,516.6, FP8 5,033.2 and MXFP4 10,066.3
      // TFLOPS dense (AMD's data sheet GD-176 as quoted in public code); up to 1,400 W.
      device("mi355x", {157.3e12, 2516.6e12, 5033.2e12, 10066.3e12}, 8e12, 288e9, 256, assumed_idle(1400), {},
             "AMD Instinct MI355X 288 GB: FP32 and dense BF16, FP8 and FP4 matrix peaks, HBM3E, 1,400 W"),
  };
}

}  // namespace

const std::vector<CatalogDevice>& builtin_devices() {
  static const std::vector<CatalogDevice> devices = [] {
    std::vector<CatalogDevice> all = validated_devices();
    for (auto&& more : {hopper_export_devices(), blackwell_devices(), instinct_devices()}) {
      all.insert(all.end(), more.begin(), more.end());
    }
    return all;
  }();
  return devices;
}

std::optional<DeviceProfile> find_builtin_device(const std::string& name) {
  const auto& all = builtin_devices();
  const auto it = std::find_if(all.begin(), all.end(), [&](const CatalogDevice& d) { return d.profile.name == name; });
  if (it == all.end()) return std::nullopt;
  return it->profile;
}

bool frameworks_fuse_attention(const std::string& name) {
  // FlashAttention (Ampere and later) and its Composable Kernel port on AMD Instinct.
  static const std::vector<std::string> fused{"a100", "h100", "h200", "h800", "h20", "b200",
                                              "gb200", "b300", "gb300", "mi300x", "mi325x", "mi355x"};
  return std::find(fused.begin(), fused.end(), name) != fused.end();
}

std::vector<std::string> builtin_device_names() {
  std::vector<std::string> names;
  for (const auto& d : builtin_devices()) names.push_back(d.profile.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dtsim::scenario
