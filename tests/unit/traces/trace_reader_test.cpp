// The profiler-trace reader: which kernels are which class, where a step's GPU time goes (against sums worked
// by hand), and the errors of a file that is no trace.

#include "sim/core/diagnostic.hpp"
#include "sim/traces/step_attribution.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace dtsim::traces {
namespace {

std::filesystem::path write_trace(const std::string& name, const std::string& text) {
  const std::filesystem::path folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "traces";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / name) << text;
  return folder / name;
}

TEST(KernelClasses, NamesOfEachLibraryTakeTheirClass) {
  EXPECT_EQ(classify_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"), KernelClass::gemm);
  EXPECT_EQ(classify_kernel("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT"), KernelClass::gemm);
  EXPECT_EQ(classify_kernel("Cijk_Ailk_Bljk_BBS_BH_MT64x16x32_MI16x16x16x1_SN"), KernelClass::gemm);
  EXPECT_EQ(classify_kernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>"),
            KernelClass::gemm);
  EXPECT_EQ(classify_kernel("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1"), KernelClass::convolution);
  EXPECT_EQ(classify_kernel("igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32"), KernelClass::convolution);
  EXPECT_EQ(classify_kernel("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>"), KernelClass::attention);
  EXPECT_EQ(classify_kernel("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"), KernelClass::communication);
  EXPECT_EQ(classify_kernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"),
            KernelClass::memory_bound);
  EXPECT_EQ(classify_kernel("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128>"), KernelClass::memory_bound);
  EXPECT_EQ(classify_kernel("my_custom_kernel_v2"), KernelClass::unrecognised);
}

/// Two steps of 100 us on the host. Step 1 launches, from a convolution operator, a CUTLASS product (a
/// convolution by its operator) at 1000-1030, an elementwise kernel at 1040-1050 (a 10 us launch gap), an
/// allreduce at 1050-1120 beside a copy at 1100-1110 and alone otherwise, and a fill at 1150-1160 (a 30 us
/// idle gap). Step 2 launches one kernel; one kernel's launch lies before the first step.
std::string two_steps() {
  const auto kernel = [](const std::string& cat, const std::string& name, double ts, double dur, int correlation) {
    return fmt::format(R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": 0, "tid": 7, "ts": {}, "dur": {},
      "args": {{"device": 0, "stream": 7, "correlation": {}}}}},)",
                       cat, name, ts, dur, correlation);
  };
  const auto launch = [](double ts, int correlation) {
    return fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 3, "ts": {},
      "dur": 2, "args": {{"correlation": {}}}}},)",
                       ts, correlation);
  };
  std::string events;
  events +=
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 3, "ts": 900, "dur": 100},)";
  events +=
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 3, "ts": 1000, "dur": 100},)";
  events +=
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::cudnn_convolution", "pid": 1, "tid": 3, "ts": 905, "dur": 10},)";
  events += launch(906, 1) + launch(920, 2) + launch(930, 3) + launch(940, 4) + launch(950, 5) + launch(1010, 6);
  events += kernel("kernel", "cutlass_80_tensorop_s1688gemm_256x64", 1000, 30, 1);
  events += kernel("kernel", "vectorized_elementwise_kernel", 1040, 10, 2);
  events += kernel("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 1050, 70, 3);
  events += kernel("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 1100, 10, 4);
  events += kernel("gpu_memset", "Memset (Device)", 1150, 10, 5);
  events += kernel("kernel", "reduce_kernel", 1200, 20, 6);
  events += kernel("kernel", "reduce_kernel", 10, 5, 99);
  events.pop_back();
  return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Lab GPU"}], "traceEvents": [)" + events + "]}";
}

TEST(StepAttribution, AStepsTimeIsItsClassesItsLonelyCommunicationAndItsGaps) {
  const std::filesystem::path path = write_trace("two-steps.json", two_steps());
  const KinetoTrace trace = read_kineto_trace(path);
  const StepAttribution a = attribute_steps(trace, path.string(), kProfilerStepMarker);
  EXPECT_EQ(a.device, "Lab GPU");
  ASSERT_EQ(a.steps.size(), 2U);
  const StepTime& s = a.steps[0];
  EXPECT_EQ(s.name, "ProfilerStep#1");
  EXPECT_DOUBLE_EQ(s.host_s, 100e-6);
  EXPECT_DOUBLE_EQ(s.class_s[static_cast<std::size_t>(KernelClass::convolution)], 30e-6);  // by its operator
  EXPECT_DOUBLE_EQ(s.class_s[static_cast<std::size_t>(KernelClass::gemm)], 0.0);
  EXPECT_DOUBLE_EQ(s.class_s[static_cast<std::size_t>(KernelClass::memory_bound)], 10e-6);
  EXPECT_DOUBLE_EQ(s.class_s[static_cast<std::size_t>(KernelClass::copy)], 20e-6);
  EXPECT_DOUBLE_EQ(s.class_s[static_cast<std::size_t>(KernelClass::communication)], 70e-6);
  // From 1000 (the product) to 1160 (the fill's end): computing 30 + 10 + 10 + 10, the allreduce alone
  // 1050-1100 and 1110-1120, a 10 us launch gap (1030-1040), a 30 us idle one (1120-1150).
  EXPECT_NEAR(s.span_s, 160e-6, 1e-12);
  EXPECT_NEAR(s.computing_s, 60e-6, 1e-12);
  EXPECT_NEAR(s.communicating_s, 60e-6, 1e-12);
  EXPECT_NEAR(s.launch_gaps_s, 10e-6, 1e-12);
  EXPECT_NEAR(s.idle_gaps_s, 30e-6, 1e-12);
  EXPECT_NEAR(s.alone_s(), 100e-6, 1e-12);
  EXPECT_NEAR(a.steps[1].span_s, 20e-6, 1e-12);
  // Over both steps' window, 1000 to 1220, per step: computing 80 / 2, the allreduce alone 60 / 2, one launch
  // gap of 10 (1030-1040), idle 30 (1120-1150) and 40 (1160-1200).
  EXPECT_NEAR(a.window.span_s, 110e-6, 1e-12);
  EXPECT_NEAR(a.window.computing_s, 40e-6, 1e-12);
  EXPECT_NEAR(a.window.communicating_s, 30e-6, 1e-12);
  EXPECT_NEAR(a.window.launch_gaps_s, 5e-6, 1e-12);
  EXPECT_NEAR(a.window.idle_gaps_s, 35e-6, 1e-12);
  EXPECT_NEAR(a.window.alone_s(), 80e-6, 1e-12);
  EXPECT_EQ(a.activities, 7);
  EXPECT_EQ(a.unattributed, 1);
  EXPECT_NEAR(a.unattributed_s, 5e-6, 1e-12);
}

TEST(StepAttribution, AnAnnotationOfOnesOwnMarksTheSteps) {
  std::string text = two_steps();
  for (std::size_t at = 0; (at = text.find("ProfilerStep#", at)) != std::string::npos;)
    text.replace(at, 13, "train_step ");
  const std::filesystem::path path = write_trace("own-marker.json", text);
  const KinetoTrace trace = read_kineto_trace(path, "train_step");
  EXPECT_EQ(attribute_steps(trace, path.string(), "train_step").steps.size(), 2U);
  try {
    static_cast<void>(attribute_steps(read_kineto_trace(path), path.string(), kProfilerStepMarker));
    FAIL() << "a trace without the marker has no step";
  } catch (const core::InputError& error) {
    EXPECT_EQ(error.diagnostics().front().message,
              "the trace marks no step: no host annotation's name begins with 'ProfilerStep#'");
  }
}

std::string error_of(const std::string& name, const std::string& text) {
  try {
    static_cast<void>(read_kineto_trace(write_trace(name, text)));
  } catch (const core::InputError& error) {
    const core::Diagnostic& d = error.diagnostics().front();
    return fmt::format("{}:{}:{}: {}", d.where.file.substr(d.where.file.rfind('/') + 1), d.where.line, d.where.column,
                       d.message);
  }
  return "no error";
}

TEST(KinetoTrace, AFileThatIsNoTraceIsNamedWithWhereItFails) {
  EXPECT_EQ(error_of("cut.json", "{\"traceEvents\": [\n  {\"ph\": \"X\",\n  \"cat\": kernel}]}"),
            "cut.json:3:10: the trace is no valid JSON: syntax error while parsing value - invalid literal");
  EXPECT_EQ(error_of("list.json", "{\"events\": []}"),
            "list.json:0:0: the file has no traceEvents of events: it is no profiler trace");
  EXPECT_EQ(
      error_of("cpu.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]})"),
      "cpu.json:0:0: the trace has no GPU kernel");
}

TEST(KinetoTrace, ATruncatedGzipIsRefusedNotReadInPart) {
  const std::filesystem::path whole = std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/data/traces/nccl_data.json.gz";
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::filesystem::path cut = write_trace("cut.json.gz", bytes.substr(0, bytes.size() / 2));
  try {
    static_cast<void>(read_kineto_trace(cut));
    FAIL() << "half a gzip file was read";
  } catch (const core::InputError& error) {
    EXPECT_EQ(error.diagnostics().front().message, "the gzip file is truncated (it ends before its last block)");
  }
}

TEST(KinetoTrace, EachShapedOperatorNamesTheInnermostModuleOpenOnItsThread) {
  // layer1 holds layer1.0 (10-45), which holds conv1 (10-20) then downsample.0 (30-40); the linear layer at 50 runs
  // in layer1 alone, the one at 70 in no module, and the convolution at 35 on another thread in none.
  const auto annotation = [](const std::string& name, double ts, double dur, int tid) {
    return fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "module: {}", "tid": {}, "ts": {}, "dur": {}}},)", name, tid,
        ts, dur);
  };
  const auto op = [](const std::string& name, const std::string& weight, double ts, int tid) {
    return fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "{}", "tid": {}, "ts": {}, "dur": 1,
      "args": {{"Input Dims": [[8, 64], {}, []]}}}},)",
                       name, tid, ts, weight);
  };
  // layer1.0 begins with its conv1, listed before it: the shorter is still the inner one.
  std::string events = annotation("layer1.0.conv1", 10, 10, 3) + annotation("layer1.0", 10, 35, 3) +
                       annotation("layer1", 5, 55, 3) + annotation("layer1.0.downsample.0", 30, 10, 3) +
                       op("aten::convolution", "[64, 64, 3, 3]", 12, 3) +
                       op("aten::convolution", "[256, 64, 1, 1]", 35, 3) + op("aten::linear", "[10, 64]", 50, 3) +
                       op("aten::linear", "[10, 64]", 70, 3) + op("aten::convolution", "[8, 8, 1, 1]", 35, 4);
  events += R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"correlation": 1}}])";
  const KinetoTrace trace = read_kineto_trace(write_trace("modules.json", "{\"traceEvents\": [" + events + "}"));
  std::map<double, std::vector<std::string>> modules;
  for (const ShapedProduct& p : trace.shaped) {
    modules[p.start_us].push_back(p.module < 0 ? "" : trace.module_names[static_cast<std::size_t>(p.module)]);
  }
  for (auto& [at, names] : modules) std::sort(names.begin(), names.end());
  EXPECT_EQ(modules, (std::map<double, std::vector<std::string>>{
                         {12, {"layer1.0.conv1"}}, {35, {"", "layer1.0.downsample.0"}}, {50, {"layer1"}}, {70, {""}}}));
  EXPECT_EQ(trace.modules.size(), 4U);
  EXPECT_EQ(trace.module_names,
            (std::vector<std::string>{"layer1.0.conv1", "layer1.0", "layer1", "layer1.0.downsample.0"}));
}

}  // namespace
}  // namespace dtsim::traces
