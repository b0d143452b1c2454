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

// A measured time must be a duration dtsim takes elsewhere (docs/limits.md: 1e-12 s to 1e9 s, both included):
// 1e300 s would print an error some 300 digits long and fit an efficiency to the end of its range.
TEST(CalibrateCommand, TimesOutsideTheDurationsDtsimTakesAreRefusedAtTheirCell) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-range");
  const std::string table = (folder / "m.csv").string();
  write(folder / "m.csv", "scenario,iteration_s\ns.yaml,1e300\ns.yaml,1e-300\ns.yaml,1e9\ns.yaml,1e-12\n");
  const CommandResult bad =
      run_dtsim(fmt::format("calibrate {} --fit lab.gemm -o {}", table, (folder / "lab.yaml").string()));
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_EQ(bad.err,
            fmt::format("{0}:2:8: error: iteration_s: expected a number of seconds from 1e-12s to 1e9s, got \"1e300\"\n"
                        "  hint: give the measured seconds of one iteration, such as 0.25 for 250 ms\n"
                        "{0}:3:8: error: iteration_s: expected a number of seconds from 1e-12s to 1e9s\n"
                        "  hint: give the measured seconds of one iteration, such as 0.25 for 250 ms\n",
                        table));
  EXPECT_FALSE(std::filesystem::exists(folder / "lab.yaml"));
}

// A row with more cells than the header names is refused where its first extra cell starts, and a header that
// names a column twice at the second name: which of the two holds the times would be a guess.
TEST(CalibrateCommand, ExtraCellsAndRepeatedColumnsAreRefusedWhereTheyStart) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-shape");
  const std::string extra_table = (folder / "extra.csv").string();
  write(folder / "extra.csv", "scenario,iteration_s\ns.yaml,0.05,abc\ns.yaml,fast,abc,def\n");
  const CommandResult extra = run_dtsim(fmt::format("calibrate {} --fit lab.gemm", extra_table));
  EXPECT_EQ(extra.exit_status, 2);
  const std::string hint =
      "  hint: give each row one cell per column of the header, and quote a cell that holds a comma "
      "(\"a,b\")\n";
  EXPECT_EQ(extra.err,
            fmt::format(
                "{0}:2:13: error: measurements: the row has 3 cells, and the header names 2, got \"abc\"\n{1}"
                "{0}:3:8: error: iteration_s: expected a positive number of seconds\n"
                "  hint: each row: a scenario file (relative to this file) and the measured seconds of one iteration\n"
                "{0}:3:13: error: measurements: the row has 4 cells, and the header names 2\n{1}",
                extra_table, hint));
  const std::string twice_table = (folder / "twice.csv").string();
  write(folder / "twice.csv", "# measured on the lab cluster\nscenario,iteration_s,iteration_s\ns.yaml,0.05,0.06\n");
  const CommandResult twice = run_dtsim(fmt::format("calibrate {} --fit lab.gemm", twice_table));
  EXPECT_EQ(twice.exit_status, 2);
  EXPECT_EQ(twice.err,
            fmt::format("{}:2:22: error: measurements: the header names the column \"iteration_s\" twice (first at "
                        "column 10)\n  hint: name each column once: dtsim would read one of the two and ignore "
                        "the other\n",
                        twice_table));
  // A spreadsheet's unnamed trailing columns are read by nothing and may repeat: the table is read, and what is
  // reported is the scenario it names, which does not exist.
  write(folder / "padded.csv", "scenario,iteration_s,,\nnone.yaml,0.05,,\n");
  const CommandResult padded = run_dtsim(fmt::format("calibrate {} --fit lab.gemm", (folder / "padded.csv").string()));
  EXPECT_EQ(padded.exit_status, 2);
  EXPECT_EQ(padded.err,
            (folder / "none.yaml").string() + ": error: cannot read scenario file: No such file or directory\n");
}

// A catalog written over an input would replace it: an -o that is the measurements table, or a scenario its rows
// name (by any name: a hard link to it too), is refused before anything is written.
TEST(CalibrateCommand, ACatalogIsNeverWrittenOverAnInput) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-output");
  const std::string scenario = lab_scenario("", true);
  const std::string table = "scenario,iteration_s\n# the lab's own run\ns.yaml,0.05\n";
  write(folder / "s.yaml", scenario);
  write(folder / "m.csv", table);
  std::filesystem::create_hard_link(folder / "s.yaml", folder / "same.yaml");
  const std::string measurements = (folder / "m.csv").string();
  const std::string hint =
      "  hint: write the catalog to a file of its own and include it in the scenarios (include: catalog.yaml)\n";
  for (const char* name : {"s.yaml", "same.yaml"}) {
    const std::string output = (folder / name).string();
    const CommandResult over = run_dtsim(fmt::format("calibrate {} --fit lab.gemm -o {}", measurements, output));
    EXPECT_EQ(over.exit_status, 2) << name;
    EXPECT_EQ(over.err,
              fmt::format("dtsim calibrate: error: --output: {} is the scenario of the measurements at {}:3: the "
                          "catalog would replace it\n{}",
                          output, measurements, hint));
  }
  const CommandResult over_table =
      run_dtsim(fmt::format("calibrate {} --fit lab.gemm -o {}", measurements, measurements));
  EXPECT_EQ(over_table.exit_status, 2);
  EXPECT_EQ(over_table.err,
            fmt::format("dtsim calibrate: error: --output: {} is the measurements table: the catalog would "
                        "replace it\n{}",
                        measurements, hint));
  EXPECT_EQ(read_file(folder / "s.yaml"), scenario);
  EXPECT_EQ(read_file(folder / "m.csv"), table);
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
  // Each line is named twice, at its time and at its third cell: the first 20 problems are those of 10 lines.
  EXPECT_NE(bad.err.find("notes.txt:12:1: error: measurements: the rows from here on are not checked: the first 20 problems are named "
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
