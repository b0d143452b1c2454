// `dtsim calibrate` on iteration times that dtsim itself produced with known efficiencies.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

/// A timing-only run on device `lab` (declared here): ResNet-50 on one device, or BERT-Base on two.
std::string lab_scenario(const std::string& efficiencies, bool resnet) {
  return fmt::format(R"(name: lab
cluster:
  workers: {}
  device: {{name: lab, precision: mixed}}
  devices:
    lab: {{peak_flops: "20TFLOPS", half_flops: "160TFLOPS", memory_bandwidth: "1TB/s"{}}}
topology: {{kind: ring, link: {{bandwidth: "100Gbps", latency: "2us"}}}}
model: {{kind: "{}"}}
training:
  batch: {{per_worker: {}}}
  optimizer: {{kind: momentum, learning_rate: 0.1}}
  stop: {{iterations: 2}}
)",
                     resnet ? 1 : 2, efficiencies, resnet ? "profile:resnet50" : "profile:bert_base", resnet ? 64 : 8);
}

void write(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

double iteration_s(const std::filesystem::path& scenario, const std::filesystem::path& output) {
  const CommandResult run = run_dtsim(fmt::format("run {} -o {} -q", scenario.string(), output.string()));
  EXPECT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::json::parse(read_file(output / "summary.json"));
  return summary["result"]["simulated_s"].get<double>() / summary["result"]["iterations"].get<double>();
}

TEST(CalibrateCommand, RecoversTheEfficienciesThatProducedTheTimes) {
  const std::filesystem::path folder = fresh_output_folder("calibrate");
  // The truth: convolution 0.23, gemm 0.61, attention 0.42 (elementwise falls back to the device's 0.5).
  const std::string truth = ", efficiencies: {convolution: 0.23, gemm: 0.61, attention: 0.42}";
  write(folder / "true-resnet.yaml", lab_scenario(truth, true));
  write(folder / "true-bert.yaml", lab_scenario(truth, false));
  const double resnet_s = iteration_s(folder / "true-resnet.yaml", folder / "true-resnet");
  const double bert_s = iteration_s(folder / "true-bert.yaml", folder / "true-bert");
  // The same scenarios with the device's efficiencies unknown (the default).
  write(folder / "resnet.yaml", lab_scenario(", efficiencies: {gemm: 0.61, attention: 0.42}", true));
  write(folder / "bert.yaml", lab_scenario(", efficiencies: {convolution: 0.23, attention: 0.42}", false));
  write(folder / "measured.csv", fmt::format("# produced by dtsim itself\nscenario,iteration_s\nresnet.yaml,{:.17g}\n"
                                             "bert.yaml,{:.17g}\n",
                                             resnet_s, bert_s));
  const CommandResult fit = run_dtsim(fmt::format("calibrate {} --fit lab.convolution --fit lab.gemm -o {}",
                                                  (folder / "measured.csv").string(), (folder / "lab.yaml").string()));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  const std::string catalog = read_file(folder / "lab.yaml");
  // gemm and attention both act on BERT: gemm is fitted with attention left at the declared 0.42.
  const auto value = [&](const std::string& key) {
    const auto at = catalog.find(key + ": ");
    EXPECT_NE(at, std::string::npos) << catalog;
    return std::stod(catalog.substr(at + key.size() + 2));
  };
  EXPECT_NEAR(value("convolution"), 0.23, 0.01 * 0.23) << fit.out;
  EXPECT_NEAR(value("gemm"), 0.61, 0.01 * 0.61) << fit.out;
  EXPECT_NE(fit.out.find("resnet.yaml"), std::string::npos);
  EXPECT_NE(fit.out.find("error"), std::string::npos);
}

TEST(CalibrateCommand, BadMeasurementsNameTheirLine) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-bad");
  write(folder / "m.csv", "scenario,iteration_s\nnone.yaml,fast\n");
  const CommandResult bad = run_dtsim(fmt::format("calibrate {} --fit a100.gemm", (folder / "m.csv").string()));
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("m.csv:2:1"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("expected a positive number of seconds"), std::string::npos) << bad.err;
  write(folder / "n.csv", "scenario,seconds\n");
  const CommandResult header = run_dtsim(fmt::format("calibrate {} --fit a100.gemm", (folder / "n.csv").string()));
  EXPECT_EQ(header.exit_status, 2);
  EXPECT_NE(header.err.find("no column 'iteration_s'"), std::string::npos) << header.err;
  const CommandResult key = run_dtsim(fmt::format("calibrate {} --fit a100.tensor", (folder / "m.csv").string()));
  EXPECT_EQ(key.exit_status, 2);
  EXPECT_NE(key.err.find("'tensor' is no operation class"), std::string::npos) << key.err;
}

// Every bad row is reported in one run, each at the column of its bad cell.
TEST(CalibrateCommand, EveryBadRowIsReportedAtItsCell) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-rows");
  std::string rows = "scenario,iteration_s,bound_percent\n";
  for (int i = 0; i < 7; ++i) rows += fmt::format("s{}.yaml,{},5\n", i, i % 2 == 0 ? "fast" : "-1");
  rows += "s7.yaml,1.0,lots\n";
  write(folder / "m.csv", rows);
  const CommandResult bad = run_dtsim(fmt::format("calibrate {} --fit a100.gemm", (folder / "m.csv").string()));
  EXPECT_EQ(bad.exit_status, 2);
  for (int line = 2; line <= 8; ++line) {
    EXPECT_NE(bad.err.find(fmt::format("m.csv:{}:9: error: iteration_s: expected a positive number of seconds", line)),
              std::string::npos) << line << "\n" << bad.err;
  }
  EXPECT_NE(bad.err.find("m.csv:9:13: error: bound_percent: expected a positive percentage\n"), std::string::npos)
      << bad.err;
  // The file is quoted once, in the first error, in a short excerpt.
  EXPECT_NE(bad.err.find("m.csv:2:9: error: iteration_s: expected a positive number of seconds, got \"fast\"\n"),
            std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("got", bad.err.find("got") + 1), std::string::npos) << bad.err;
}

// A text that is no table of measurements is named, not printed: at most one short excerpt of it.
TEST(CalibrateCommand, ATextThatIsNoTableIsQuotedInOneShortExcerpt) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-text");
  std::string text = "scenario,iteration_s\n";
  for (int i = 0; i < 50; ++i) text += fmt::format("secret line {} of a private file, with its words,{}\n", i, "x");
  write(folder / "notes.txt", text);
  const CommandResult bad = run_dtsim(fmt::format("calibrate {} --fit a100.gemm", (folder / "notes.txt").string()));
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("notes.txt:2:33: error: iteration_s: expected a positive number of seconds, got \"with its "
                         "words\"\n"),
            std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("secret line"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("got", bad.err.find("got") + 1), std::string::npos) << bad.err;
  // A long file's bad rows are named up to a bound, not one line each.
  EXPECT_NE(bad.err.find("notes.txt:22:1: error: measurements: the rows from here on are not checked: the first 20 problems are named "
                         "above"),
            std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 2 * 20 + 1) << bad.err;
  write(folder / "nccl.txt", "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                             "1024 this line of a private file goes on for longer than any excerpt may\n");
  const CommandResult nccl = run_dtsim(fmt::format("calibrate {} --scenario {}", (folder / "nccl.txt").string(),
                                                   scenario_path("quickstart.yaml").string()));
  EXPECT_EQ(nccl.exit_status, 2);
  EXPECT_NE(nccl.err.find("nccl.txt:2:1: error: measurements: expected a size, a time in microseconds and two "
                          "bandwidths, got \"1024 this line of a priv...\" (72 characters)"),
            std::string::npos) << nccl.err;
}

// Without --fit, the rows are compared with their predictions: a row over its bound_percent makes the exit
// status 1 and is marked; within it, 0.
TEST(CalibrateCommand, WithoutFitComparesEachRowWithItsBound) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-check");
  write(folder / "resnet.yaml", lab_scenario(", efficiency: 0.4", true));
  const double predicted = iteration_s(folder / "resnet.yaml", folder / "resnet");
  // Measured 1.1 x the predicted time: the predicted throughput is 10% above the measured one.
  write(folder / "tight.csv", fmt::format("scenario,iteration_s,bound_percent\nresnet.yaml,{:.17g},5\n", 1.1 * predicted));
  const CommandResult over = run_dtsim(fmt::format("calibrate {}", (folder / "tight.csv").string()));
  EXPECT_EQ(over.exit_status, 1) << over.err;
  EXPECT_NE(over.out.find("+10.00%  OVER 5.0%"), std::string::npos) << over.out;
  EXPECT_NE(over.out.find("1 row(s) over their bound"), std::string::npos) << over.out;
  write(folder / "loose.csv", fmt::format("scenario,iteration_s,bound_percent\nresnet.yaml,{:.17g},12\n", 1.1 * predicted));
  const CommandResult within = run_dtsim(fmt::format("calibrate {}", (folder / "loose.csv").string()));
  EXPECT_EQ(within.exit_status, 0) << within.err;
  EXPECT_NE(within.out.find("median |error| 10.00%, largest 10.00%"), std::string::npos) << within.out;
  EXPECT_EQ(within.out.find("OVER"), std::string::npos) << within.out;
  // A catalog needs something fitted.
  const CommandResult nothing = run_dtsim(fmt::format("calibrate {} -o {}", (folder / "loose.csv").string(),
                                                      (folder / "catalog.yaml").string()));
  EXPECT_EQ(nothing.exit_status, 2);
  EXPECT_FALSE(std::filesystem::exists(folder / "catalog.yaml"));
}

// Rows marked `split: test` judge the fitted values and take no part in fitting them: a test row twice as slow
// as the truth leaves the fitted efficiency where the fit row puts it, and is reported apart.
TEST(CalibrateCommand, TestRowsJudgeTheFitAndTakeNoPartInIt) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-split");
  write(folder / "true-resnet.yaml", lab_scenario(", efficiencies: {convolution: 0.23}", true));
  const double truth_s = iteration_s(folder / "true-resnet.yaml", folder / "true-resnet");
  write(folder / "resnet.yaml", lab_scenario("", true));
  write(folder / "m.csv", fmt::format("scenario,iteration_s,split\nresnet.yaml,{:.17g},fit\nresnet.yaml,{:.17g},test\n",
                                      truth_s, 2.0 * truth_s));
  const CommandResult fit = run_dtsim(fmt::format("calibrate {} --fit lab.convolution -o {}", (folder / "m.csv").string(),
                                                  (folder / "lab.yaml").string()));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  const std::string catalog = read_file(folder / "lab.yaml");
  const auto at = catalog.find("convolution: ");
  ASSERT_NE(at, std::string::npos) << catalog;
  EXPECT_NEAR(std::stod(catalog.substr(at + 13)), 0.23, 0.01 * 0.23) << fit.out;
  EXPECT_NE(fit.out.find("  1 fit row(s), which fitted the values: median |error| 0.00%"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("  1 test row(s), which judge them: median |error| 100.00%"), std::string::npos) << fit.out;
  // Nothing to fit on, and a split that is neither.
  write(folder / "tests-only.csv", fmt::format("scenario,iteration_s,split\nresnet.yaml,{:.17g},test\n", truth_s));
  const CommandResult none = run_dtsim(fmt::format("calibrate {} --fit lab.convolution", (folder / "tests-only.csv").string()));
  EXPECT_EQ(none.exit_status, 2);
  EXPECT_NE(none.err.find("every row is a test row: nothing is left to fit on"), std::string::npos) << none.err;
  write(folder / "odd.csv", fmt::format("scenario,iteration_s,split\nresnet.yaml,{:.17g},train\n", truth_s));
  const CommandResult odd = run_dtsim(fmt::format("calibrate {} --fit lab.convolution", (folder / "odd.csv").string()));
  EXPECT_EQ(odd.exit_status, 2);
  EXPECT_NE(odd.err.find("odd.csv:2:"), std::string::npos) << odd.err;
  EXPECT_NE(odd.err.find("error: split: expected fit or test, got \"train\""), std::string::npos) << odd.err;
}

}  // namespace
}  // namespace dtsim::testing
