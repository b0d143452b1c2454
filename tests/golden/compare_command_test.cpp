// `dtsim compare` as a user runs it on result folders: one row per run, with the numbers of each run's
// own summary.json; a folder without a summary is an input error naming it.

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include <fstream>
#include <sys/stat.h>

namespace dtsim::testing {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string piece; std::getline(in, piece, separator);) out.push_back(piece);
  return out;
}

TEST(CompareCommand, OneRowPerRunWithTheNumbersOfItsSummary) {
  const auto root = fresh_output_folder("compare-command");
  for (const std::string name : {"straggler", "straggler-async"}) {
    const CommandResult run = run_dtsim("run " + scenario_path("compare/" + name + ".yaml").string() + " -q -o " +
                                        (root / name).string());
    ASSERT_EQ(run.exit_status, 0) << run.err;
  }
  const std::string folders = " " + (root / "straggler").string() + " " + (root / "straggler-async").string();
  const CommandResult table = run_dtsim("compare" + folders);
  ASSERT_EQ(table.exit_status, 0) << table.err;
  const auto lines = split(table.out, '\n');
  ASSERT_EQ(lines.size(), 3U) << table.out;
  EXPECT_NE(lines[0].find("to loss 0.2 s"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("straggler ", 0), 0U) << lines[1];
  EXPECT_NE(lines[2].find("async"), std::string::npos) << lines[2];

  const CommandResult csv = run_dtsim("compare --csv" + folders);
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  const auto rows = split(csv.out, '\n');
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0], "run,strategy,architecture,stragglers,simulated_s,time_to_target_s,final_val_loss,mean_staleness,"
                     "waiting_fraction,bytes_sent,diverged_at_iteration,samples_per_s,tokens_per_s,"
                     "model_flops_utilization,peak_memory_bytes,idle_fraction,layout");
  const auto async = split(rows[2], ',');
  ASSERT_EQ(async.size(), 16U) << rows[2];  // getline drops the empty last cell (layout)
  EXPECT_EQ(async[11], "") << "a run trained for real has no timing-only columns";
  EXPECT_EQ(rows[2].back(), ',') << "diverged_at_iteration is empty for a run that did not diverge";
  const auto summary = nlohmann::json::parse(read_file(root / "straggler-async" / "summary.json"));
  // The CSV prints nine significant digits of summary.json's full-precision numbers.
  const auto expect_nine_digits = [](const std::string& cell, double value) {
    EXPECT_NEAR(std::stod(cell), value, 1e-8 * std::abs(value)) << cell;
  };
  EXPECT_EQ(async[0], "straggler-async");
  EXPECT_EQ(async[1], "async");
  EXPECT_EQ(async[3], "w3x4");
  expect_nine_digits(async[4], summary["result"]["simulated_s"].get<double>());
  expect_nine_digits(async[5], summary["result"]["time_to_target"]["sim_time_s"].get<double>());
  expect_nine_digits(async[6], summary["result"]["final"]["val_loss"].get<double>());
  expect_nine_digits(async[7], summary["result"]["staleness"]["mean"].get<double>());
  double wait = 0.0;
  for (int rank = 0; rank < 8; ++rank) wait += summary["hosts"][rank]["wait_s"].get<double>();
  EXPECT_NEAR(std::stod(async[8]), wait / (8 * summary["result"]["simulated_s"].get<double>()), 1e-6);
  expect_nine_digits(async[9], summary["result"]["bytes_sent"].get<double>());
}

// Timing-only runs have no loss: their row says so instead of refusing the summary; a sweep's folder stands
// for its points, in the sweep's order.
TEST(CompareCommand, TimingOnlySweepFolderGivesOneRowPerPoint) {
  const auto root = fresh_output_folder("compare-timing-only");
  const CommandResult run =
      run_dtsim("run " + scenario_path("profiles/bert-large-local-sgd.yaml").string() + " -q -o " + (root / "sweep").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const CommandResult csv = run_dtsim("compare --csv " + (root / "sweep").string());
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  const auto rows = split(csv.out, '\n');
  const auto points = split(read_file(root / "sweep" / "sweep.csv"), '\n');
  ASSERT_EQ(rows.size(), points.size()) << csv.out;
  ASSERT_GE(rows.size(), 3U) << csv.out;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split(rows[i], ',');
    ASSERT_EQ(cells.size(), 16U) << rows[i];  // getline drops the empty last cell (layout: data parallelism)
    EXPECT_EQ(cells[6], "") << "a timing-only run has no final loss: " << rows[i];
    EXPECT_GT(std::stod(cells[12]), 0.0) << "tokens_per_s: " << rows[i];
    EXPECT_GT(std::stod(cells[14]), 0.0) << "peak_memory_bytes: " << rows[i];
    const std::string point = split(points[i], ',')[0];
    EXPECT_NE(cells[0].find(point.substr(1, point.size() - 2)), std::string::npos) << cells[0] << " vs " << point;
  }
  const CommandResult table = run_dtsim("compare " + (root / "sweep").string());
  ASSERT_EQ(table.exit_status, 0) << table.err;
  EXPECT_EQ(split(table.out, '\n').size(), rows.size()) << table.out;
  // Timing-only runs together get the columns a plan reads.
  EXPECT_EQ(table.out.rfind("run", 0), 0U);
  EXPECT_NE(split(table.out, '\n')[0].find("iteration s       tokens/s    MFU  peak memory  layout"), std::string::npos)
      << table.out;
}

// The columns a plan reads, chosen by name; each cell the run's own figure.
TEST(CompareCommand, ColumnsChosenByNameShowTheRunsOwnFigures) {
  const auto root = fresh_output_folder("compare-columns");
  const CommandResult run =
      run_dtsim("run " + scenario_path("parallelism/bert-large-pipeline.yaml").string() + " -q -o " + (root / "sweep").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const std::string columns = " --columns layout,iteration_s,samples_per_s,pipeline_s,bubble ";
  const CommandResult csv = run_dtsim("compare --csv" + columns + (root / "sweep").string());
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  const auto rows = split(csv.out, '\n');
  ASSERT_GE(rows.size(), 3U) << csv.out;
  EXPECT_EQ(rows[0], "run,layout,iteration_s,samples_per_s,pipeline_s,bubble");
  const auto points = split(read_file(root / "sweep" / "sweep.csv"), '\n');
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = core::csv_cells(rows[i]);
    ASSERT_EQ(cells.size(), 6U) << rows[i];
    std::string point = split(points[i], ',')[0];
    if (point.front() == '"') point = point.substr(1, point.size() - 2);
    const auto summary = nlohmann::json::parse(read_file(root / "sweep" / point / "summary.json"));
    const auto& result = summary["result"];
    EXPECT_NEAR(std::stod(cells[2]), result["simulated_s"].get<double>() / result["iterations"].get<double>(), 1e-9);
    EXPECT_NEAR(std::stod(cells[3]), result["throughput"]["samples_per_s"].get<double>(), 1e-6);
    const double pipeline = summary["hosts"][0]["communication_by_kind_s"]["pipeline"].get<double>();
    EXPECT_NEAR(std::stod(cells[4]), pipeline / result["iterations"].get<double>(), 1e-9);
    EXPECT_NEAR(std::stod(cells[5]), 100.0 * result["pipeline"]["idle_fraction"].get<double>(), 1e-4);
    EXPECT_EQ(cells[1].rfind("t1 p", 0), 0U) << cells[1];
  }
  const CommandResult table = run_dtsim("compare" + columns + (root / "sweep").string());
  ASSERT_EQ(table.exit_status, 0) << table.err;
  EXPECT_EQ(split(table.out, '\n').size(), rows.size());
  const CommandResult unknown = run_dtsim("compare --columns layout,tokens " + (root / "sweep").string());
  EXPECT_EQ(unknown.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(unknown.err).rfind("dtsim compare: error: --columns: no column 'tokens'\n  hint: the columns: run, ", 0), 0U)
      << unknown.err;
  const CommandResult help = run_dtsim("compare --columns help");
  EXPECT_EQ(help.exit_status, 0);
  EXPECT_NE(help.out.find("  tokens_per_s      timing-only runs: tokens per second\n"), std::string::npos) << help.out;
}

// A sweep over two axes names its points with a comma ("collectives[algorithm=ring,workers=4]"): the CSV
// quotes them, so that every row still has one cell per column (pandas and spreadsheets read it).
TEST(CompareCommand, CellsWithCommasAreQuoted) {
  const auto root = fresh_output_folder("compare-quoted");
  const CommandResult run =
      run_dtsim("run " + scenario_path("course/03-collectives.yaml").string() + " -q -o " + (root / "sweep").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const CommandResult csv = run_dtsim("compare --csv " + (root / "sweep").string());
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  const auto rows = split(csv.out, '\n');
  ASSERT_EQ(rows.size(), 9U) << csv.out;
  EXPECT_EQ(rows[1].rfind("\"collectives[algorithm=ring,workers=4]\",", 0), 0U) << rows[1];
  for (const std::string& row : rows) {
    const std::vector<std::string> cells = core::csv_cells(row);
    ASSERT_EQ(cells.size(), 17U) << row;
  }
  EXPECT_EQ(core::csv_cells(rows[8])[0], "collectives[algorithm=tree,workers=32]");
}

// A scaling study's folder stands for its weak sweep's points, then its strong sweep's.
TEST(CompareCommand, AScalingStudysFolderStandsForBothItsSweeps) {
  const auto root = fresh_output_folder("compare-scaling");
  const CommandResult study = run_dtsim("scale " + scenario_path("course/09-scaling.yaml").string() +
                                        " --workers 1,2 -q -o " + (root / "study").string());
  ASSERT_EQ(study.exit_status, 0) << study.err;
  const CommandResult csv = run_dtsim("compare --csv " + (root / "study").string());
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  const auto rows = split(csv.out, '\n');
  ASSERT_EQ(rows.size(), 5U) << csv.out;
  EXPECT_EQ(core::csv_cells(rows[1])[0], "scaling[workers=1]");
  EXPECT_EQ(core::csv_cells(rows[2])[0], "scaling[workers=2]");
  EXPECT_EQ(core::csv_cells(rows[3])[0], "scaling[workers=1,per_worker=256]");
  EXPECT_EQ(core::csv_cells(rows[4])[0], "scaling[workers=2,per_worker=128]");
}

TEST(CompareCommand, AFolderWithoutASummaryIsAnInputError) {
  const auto root = fresh_output_folder("compare-missing");
  const CommandResult result = run_dtsim("compare " + (root / "nothing").string());
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_NE(result.err.find("nothing/summary.json: error: no summary.json here"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("hint: give result folders"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
}

// A pipe named summary.json is named, never opened (opening it would wait for a writer); a summary that is a
// JSON array is no summary; a sweep's table naming a point outside the sweep is refused before anything is read.
TEST(CompareCommand, APipeAForeignSummaryOrAPointOutsideTheSweepIsAnInputError) {
  const auto root = fresh_output_folder("compare-hostile");
  std::filesystem::create_directories(root / "pipe");
  ASSERT_EQ(::mkfifo((root / "pipe" / "summary.json").c_str(), 0600), 0);
  const CommandResult pipe = run_dtsim("compare " + (root / "pipe").string());
  EXPECT_EQ(pipe.exit_status, 2);
  EXPECT_EQ(pipe.err, (root / "pipe" / "summary.json").string() +
                          ": error: cannot read the summary: it is a pipe or a socket, not a file\n"
                          "  hint: give result folders that `dtsim run` wrote\n");
  std::filesystem::create_directories(root / "array");
  std::ofstream(root / "array" / "summary.json") << "[1]";
  const CommandResult array = run_dtsim("report " + (root / "array").string() + " -o " + (root / "r.html").string());
  EXPECT_EQ(array.exit_status, 2);
  EXPECT_EQ(array.err, (root / "array" / "summary.json").string() +
                           ": error: not a dtsim summary: array without dtsim_version\n"
                           "  hint: give result folders that `dtsim run` wrote\n");
  std::filesystem::create_directories(root / "sweep");
  std::ofstream(root / "sweep" / "sweep.csv") << "point,x\n../array,1\n";
  const CommandResult outside = run_dtsim("compare " + (root / "sweep").string());
  EXPECT_EQ(outside.exit_status, 2);
  EXPECT_EQ(outside.err, (root / "sweep" / "sweep.csv").string() +
                             ": error: line 2 names a point that is not a folder of the sweep's own\n"
                             "  hint: give a sweep's folder as `dtsim run` wrote it\n");
  EXPECT_FALSE(std::filesystem::exists(root / "r.html"));
}

}  // namespace
}  // namespace dtsim::testing
