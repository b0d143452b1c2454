// `dtsim calibrate TRACE --scenario S`: two public profiler traces of real training steps (an A100's and an
// MI300X's) and two captured with tools/capture_trace.py on an H200, each calibrated, its fragment included in the
// scenario, and the scenario's simulated step compared with the traced one.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>

namespace dtsim::testing {
namespace {

std::filesystem::path trace_data(const std::string& name) {
  return std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/data/traces" / name;
}

/// The seconds of one simulated iteration of `scenario`.
double step_seconds(const std::filesystem::path& scenario, const std::filesystem::path& output) {
  const CommandResult run = run_dtsim(fmt::format("run {} -o {} -q", scenario.string(), output.string()));
  EXPECT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::json::parse(read_file(output / "summary.json"));
  return summary["result"]["simulated_s"].get<double>() / summary["result"]["iterations"].get<double>();
}

/// The number after `label` in `report` (milliseconds, as the report prints them).
double figure_after(const std::string& report, const std::string& label) {
  const std::smatch found = [&] {
    std::smatch m;
    std::regex_search(report, m, std::regex(label + " ([0-9.]+) ms"));
    return m;
  }();
  EXPECT_FALSE(found.empty()) << label << " is not in:\n" << report;
  return found.empty() ? 0.0 : std::stod(found[1].str()) * 1e-3;
}

struct TracedStep {
  const char* trace;
  const char* scenario;
  const char* device;
  const char* unattributed;  ///< the report's line of what it could not attribute
  const char* matched;       ///< the report's line of the layers matched by shape (or by name)
  const char* fitted;        ///< the fragment's efficiencies
};

class TraceRoundTrip : public ::testing::TestWithParam<TracedStep> {};

TEST_P(TraceRoundTrip, TheFragmentMakesTheScenarioTakeTheTracedStep) {
  const TracedStep& t = GetParam();
  const std::filesystem::path folder = fresh_output_folder(std::string("trace-") + t.scenario);
  const CommandResult fit =
      run_dtsim(fmt::format("calibrate {} --scenario {} -o {}", trace_data(t.trace).string(),
                            trace_data(std::string(t.scenario) + ".yaml").string(), (folder / "gpu.yaml").string()));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  EXPECT_NE(fit.out.find(fmt::format("({})", t.device)), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find(t.unattributed), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find(t.matched), std::string::npos) << fit.out;
  const std::string fragment = read_file(folder / "gpu.yaml");
  EXPECT_NE(fragment.find(t.fitted), std::string::npos) << fragment;
  EXPECT_NE(fragment.find("layer_overhead: \""), std::string::npos) << fragment;
  // The scenario with the fragment included, as a user would write it.
  std::ofstream(folder / "calibrated.yaml") << "include: gpu.yaml\n"
                                            << read_file(trace_data(std::string(t.scenario) + ".yaml"));
  const double simulated = step_seconds(folder / "calibrated.yaml", folder / "run");
  const double traced = figure_after(fit.out, "its computation alone");
  EXPECT_NEAR(simulated / traced, 1.0, 0.05) << "simulated " << simulated << " s, traced " << traced << " s";
  // Without the fragment, the catalog's figures miss the step by far: the calibration is what matches it.
  const double catalog = step_seconds(trace_data(std::string(t.scenario) + ".yaml"), folder / "catalog");
  EXPECT_GT(std::abs(catalog / traced - 1.0), 0.5) << catalog;
  // The same trace and scenario give the same report and fragment, byte for byte.
  const CommandResult again =
      run_dtsim(fmt::format("calibrate {} --scenario {} -o {}", trace_data(t.trace).string(),
                            trace_data(std::string(t.scenario) + ".yaml").string(), (folder / "again.yaml").string()));
  EXPECT_EQ(again.out.substr(0, again.out.find("catalog written")), fit.out.substr(0, fit.out.find("catalog written")));
  const auto body = [](const std::string& text) { return text.substr(text.find("cluster:")); };
  EXPECT_EQ(body(read_file(folder / "again.yaml")), body(fragment));
}

INSTANTIATE_TEST_SUITE_P(
    PublicTraces, TraceRoundTrip,
    ::testing::Values(
        TracedStep{"nccl_data.json.gz", "resnet50-a100", "NVIDIA A100-PG509-200",
                   "not attributed: 0 of the GPU's 3774 activities (0.000 ms)",
                   "layers: the trace recorded no input shapes (torch.profiler's record_shapes): none matched",
                   "efficiencies: {convolution: "},
        TracedStep{"resnet_act_checkpoint.json.gz", "resnet18-mi300x", "AMD Instinct MI300X",
                   "not attributed: 968 of the GPU's 3653 activities (31.834 ms)",
                   "matched by shape: 21 of the table's 21 convolution and product layers; traced "
                   "operators of no layer's shape: 0 a step; run beyond the table's count: 19 a step",
                   "efficiencies: {convolution: "},
        // Captured by tools/capture_trace.py on an H200 (SOURCES.md): a ResNet matched by its modules' names.
        TracedStep{"resnet50-h200-bf16.json.gz", "resnet50-h200", "NVIDIA H200",
                   "not attributed: 20 of the GPU's 2999 activities (2.699 ms)",
                   "matched by name (the trace's module annotations) and shape: 54 of the table's 54 convolution "
                   "and product layers; named, the table's parameters not the traced weight's: 0",
                   "efficiencies: {convolution: "},
        // A transformer: products and attention fitted.
        TracedStep{"gpt2-h200-bf16.json.gz", "gpt2-h200", "NVIDIA H200",
                   "not attributed: 758 of the GPU's 4427 activities (30.473 ms)",
                   "named, the table's parameters not the traced weight's: 1: lm_head (traced 50257x768)",
                   "efficiencies: {gemm: "}),
    [](const ::testing::TestParamInfo<TracedStep>& param_info) {
      std::string name = param_info.param.scenario;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(CalibrateTrace, TheFragmentNeverReplacesTheTraceOrTheScenario) {
  const std::filesystem::path folder = fresh_output_folder("trace-inputs");
  const std::filesystem::path trace = folder / "step.json.gz";
  std::filesystem::copy_file(trace_data("resnet_act_checkpoint.json.gz"), trace);
  const std::string before = read_file(trace);
  const CommandResult over_trace = run_dtsim(fmt::format("calibrate {} --scenario {} -o {}", trace.string(),
                                                         trace_data("resnet18-mi300x.yaml").string(), trace.string()));
  EXPECT_EQ(over_trace.exit_status, 2);
  EXPECT_NE(over_trace.err.find("is the profiled trace: the fragment would replace it"), std::string::npos)
      << over_trace.err;
  EXPECT_EQ(read_file(trace), before);
  const CommandResult device =
      run_dtsim(fmt::format("calibrate /dev/zero --scenario {}", trace_data("resnet18-mi300x.yaml").string()));
  EXPECT_EQ(device.exit_status, 2);
  EXPECT_NE(device.err.find("/dev/zero: error: measurements: cannot read the measurements: it is a device, not a file"),
            std::string::npos)
      << device.err;
  const CommandResult no_scenario = run_dtsim(fmt::format("calibrate {}", trace.string()));
  EXPECT_EQ(no_scenario.exit_status, 2);
  EXPECT_NE(no_scenario.err.find("a profiled step needs the scenario of the model it traced"), std::string::npos)
      << no_scenario.err;
}

}  // namespace
}  // namespace dtsim::testing
