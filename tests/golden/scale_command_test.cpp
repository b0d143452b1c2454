// `dtsim scale` end to end, on cases computed by hand: a network so fast that only compute counts.

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

/// ResNet-50's layer table on a 1 TFLOPS device at full efficiency (no memory bandwidth: no roofline), over a
/// network so fast that its allreduce costs nanoseconds: each iteration is B x F + 2P FLOPs (the forward and
/// backward passes of B samples, then SGD's 2 FLOPs per parameter).
fs::path compute_only(const fs::path& folder) {
  std::ofstream(folder / "compute-only.yaml") << R"(name: compute-only
cluster:
  workers: 4
  device: {name: flat, peak_flops: "1TFLOPS", efficiency: 1}
topology:
  kind: ring
  link: {bandwidth: "1000000Tbps", latency: "0us"}
model: {kind: "profile:resnet50"}
training:
  batch: {per_worker: 16}
  optimizer: {kind: sgd, learning_rate: 0.1}
  stop: {iterations: 2}
)";
  return folder / "compute-only.yaml";
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream cellstream(line);
    std::string cell;
    while (std::getline(cellstream, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(ScaleCommand, ComputeAloneScalesPerfectlyAndTheOptimizersStepIsTheSerialFraction) {
  const fs::path folder = fresh_output_folder("scale_compute_only");
  const CommandResult run = run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2,4,8 -j 2 -o " +
                                      (folder / "study").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto rows = csv_rows(read_file(folder / "study" / "scaling.csv"));
  ASSERT_EQ(rows.size(), 9U);
  // Weak: every worker computes the same batch in the same time.
  for (std::size_t i = 1; i <= 4; ++i) {
    ASSERT_EQ(rows[i][0], "weak");
    const double workers = std::stod(rows[i][1]);
    EXPECT_NEAR(std::stod(rows[i][4]), workers, 1e-6 * workers) << "speedup";
    EXPECT_NEAR(std::stod(rows[i][5]), 1.0, 1e-6) << "efficiency";
  }
  // Strong: the 64 samples split over the workers, SGD's step on every worker: Amdahl with f = 2P / (R T(1)).
  const auto one = nlohmann::json::parse(read_file(folder / "study" / "strong" / "workers=1,per_worker=64" / "summary.json"));
  const double parameters = one["result"]["parameters"].get<double>();
  ASSERT_EQ(rows[5][0], "strong");
  ASSERT_EQ(rows[5][1], "1");
  const double one_worker_s = std::stod(rows[5][2]);
  const double serial = 2.0 * parameters / (1e12 * one_worker_s);
  EXPECT_NEAR(std::stod(rows[5][12]), serial, 0.01 * serial) << "the fitted serial fraction";
  for (std::size_t i = 6; i <= 8; ++i) {
    const double workers = std::stod(rows[i][1]);
    EXPECT_NEAR(std::stod(rows[i][4]), 1.0 / (serial + (1.0 - serial) / workers), 1e-6 * workers) << "speedup";
    EXPECT_NEAR(std::stod(rows[i][6]), serial, 0.01 * serial) << "Karp-Flatt";
  }
  EXPECT_NE(run.out.find("strong scaling: Amdahl's law fits a serial fraction"), std::string::npos) << run.out;
  const std::string report = read_file(folder / "study" / "report.html");
  EXPECT_NE(report.find("<h2>Parallel efficiency</h2>"), std::string::npos);
}

TEST(ScaleCommand, AGlobalBatchTheWorkersCannotSplitIsAnErrorNamingTheCountsThatFit) {
  const fs::path folder = fresh_output_folder("scale_uneven");
  const CommandResult run = run_dtsim("scale " + compute_only(folder).string() + " --workers 1,3,4,6 --mode strong -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  // At the batch the scenario declares (line 10), naming the counts whose replicas cannot split it.
  EXPECT_EQ(without_sanitizer_notices(run.err),
            (folder / "compute-only.yaml").string() +
                ":10:23: error: training.batch.per_worker: strong scaling keeps the global batch, 64 (4 replicas x 16), "
                "which 3 workers and 6 workers cannot split evenly over their replicas\n"
                "  hint: worker counts that divide it: [1, 4]\n");
  EXPECT_FALSE(fs::exists(folder / "study")) << "a study that cannot run writes nothing";
}

// A scenario that declares its global batch is refused at that key, and a split model's count names its replicas:
// 128 workers of tensor 2 make 64 replicas, which a batch of 32 cannot give a sample each.
TEST(ScaleCommand, AGlobalBatchTheReplicasCannotSplitIsRefusedAtTheKeyTheScenarioDeclares) {
  const fs::path folder = fresh_output_folder("scale_uneven_global");
  const fs::path scenario = scenario_path("plan/gpt2-medium-a100-x16.yaml");
  const CommandResult run = run_dtsim("scale " + scenario.string() + " --workers 16,128 --mode strong -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(run.err),
            scenario.string() +
                ":24:19: error: training.batch.global: strong scaling keeps the global batch, 32 (8 replicas x 4), "
                "which 128 workers (64 replicas) cannot split evenly over their replicas\n"
                "  hint: worker counts that divide it: [16]\n");
  EXPECT_FALSE(fs::exists(folder / "study"));
}

// A problem of a point the study generates names the point and cites the user's line, before anything is written:
// worker 6 fails in a scenario of 8 workers, and the point of 4 has no worker 6.
TEST(ScaleCommand, AnErrorOfAGeneratedPointNamesItAtTheUsersLine) {
  const fs::path folder = fresh_output_folder("scale_point_error");
  const fs::path scenario = folder / "failing-worker.yaml";
  std::ofstream(scenario) << R"(name: failing-worker
cluster:
  workers: 8
  device: {name: flat, peak_flops: "1TFLOPS", efficiency: 1}
topology:
  kind: ring
  link: {bandwidth: "1000000Tbps", latency: "0us"}
model: {kind: "profile:resnet50"}
training:
  batch: {per_worker: 16}
  optimizer: {kind: sgd, learning_rate: 0.1}
  stop: {iterations: 2}
failures:
  events:
    - {kind: worker, target: "6", at: 1ms, repair_after: 1ms}
)";
  const CommandResult run = run_dtsim("scale " + scenario.string() + " --workers 4,8 --mode weak -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  // The generated scenario includes the user's by its absolute name.
  EXPECT_EQ(without_sanitizer_notices(run.err),
            fs::absolute(scenario).lexically_normal().string() +
                ":15:30: error: failures.events[0].target: expected a worker rank from 0 to 3, got \"6\"\n"
                "  hint: in sweep point workers=4\n");
  EXPECT_FALSE(fs::exists(folder / "study"));
}

// Under --confine a study reads the scenario named on its command line wherever it lies, as `dtsim run` does, with
// --plan or without, in the study and in each point's run; nothing is left beside the results, and each run's
// summary names the generated scenario where it lies once the study is done.
TEST(ScaleCommand, ScalesAScenarioOutsideTheConfinedFolderNamedOnItsCommandLine) {
  const fs::path folder = fresh_output_folder("scale_confined");
  fs::create_directories(folder / "conf");
  const std::string confined = " --mode strong -j 2 -q --confine " + (folder / "conf").string() + " -o ";
  const auto check = [&](const fs::path& study) {
    for (const auto& entry : fs::directory_iterator(study)) {
      EXPECT_NE(entry.path().filename().string().front(), '.') << entry.path() << " is left behind";
    }
    const std::string generated = fs::weakly_canonical(study / "strong.yaml").string();
    EXPECT_TRUE(fs::is_regular_file(generated));
    for (const auto& entry : fs::directory_iterator(study / "strong")) {
      if (!fs::is_directory(entry.path())) continue;
      const auto summary = nlohmann::json::parse(read_file(entry.path() / "summary.json"));
      EXPECT_EQ(summary["origin"]["file"], generated) << entry.path();
    }
  };
  const CommandResult plain =
      run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2" + confined + (folder / "plain").string());
  ASSERT_EQ(plain.exit_status, 0) << plain.err;
  EXPECT_EQ(without_sanitizer_notices(plain.err), "");
  check(folder / "plain");
  const CommandResult planned =
      run_dtsim("scale " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                " --workers 16 --plan --zero 1 --recomputation selective --schedule 1f1b --keep-placement" + confined +
                (folder / "planned").string());
  ASSERT_EQ(planned.exit_status, 0) << planned.err;
  EXPECT_EQ(without_sanitizer_notices(planned.err), "");
  check(folder / "planned");
}

// Worker counts are whole numbers in plain decimal: 0x10 is refused, not read as 16.
TEST(ScaleCommand, RefusesWorkerCountsThatAreNotPlainDecimalNumbers) {
  const fs::path folder = fresh_output_folder("scale_count_forms");
  const CommandResult run =
      run_dtsim("scale " + compute_only(folder).string() + " --workers 1,0x10 -o " + (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(run.err),
            "--workers: a worker count is a whole number from 1 to 65,536, given in plain decimal digits, got '0x10'\n"
            "Run with --help for more information.\n");
  EXPECT_FALSE(fs::exists(folder / "study"));
}

/// GPT-2 small split tensor 2 x pipeline 2 on 4 H100s: a study grows its data-parallel replicas of 4 devices.
fs::path split_model(const fs::path& folder) {
  std::ofstream(folder / "split.yaml") << R"(name: split
cluster:
  workers: 4
  device: {name: h100, precision: mixed}
topology:
  kind: ring
  link: {bandwidth: "400Gbps", latency: "2us"}
model: {kind: "profile:gpt2_small", sequence_length: 512}
training:
  parallelism: {tensor: 2, pipeline: 2, microbatches: 4}
  batch: {global: 16}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  return folder / "split.yaml";
}

// Tensor x pipeline stay as declared and the replicas grow: weak keeps each replica's batch (16), strong splits
// the global 16 over them; every point's summary says its data degree.
TEST(ScaleCommand, AModelParallelStudyGrowsTheReplicas) {
  const fs::path folder = fresh_output_folder("scale_split");
  const CommandResult run =
      run_dtsim("scale " + split_model(folder).string() + " --workers 4,8,16 -j 2 -o " + (folder / "study").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto rows = csv_rows(read_file(folder / "study" / "scaling.csv"));
  ASSERT_EQ(rows.size(), 7U);
  const auto summary = [&](const std::string& mode, const std::string& point) {
    return nlohmann::json::parse(read_file(folder / "study" / mode / point / "summary.json"));
  };
  // The scenario declares its global batch: weak grows it with the replicas, strong keeps it.
  const auto weak = summary("weak", "workers=16,data=4,global=64");
  EXPECT_EQ(weak["result"]["parallelism"]["data"], 4);
  EXPECT_EQ(weak["result"]["parallelism"]["tensor"], 2);
  EXPECT_EQ(weak["scenario"]["training"]["batch"]["global"], 64);
  const auto strong = summary("strong", "workers=16,data=4");
  EXPECT_EQ(strong["result"]["parallelism"]["pipeline"], 2);
  EXPECT_EQ(strong["scenario"]["training"]["batch"]["global"], 16);
}

/// The rows of a CSV file whose cells may be quoted, by column name.
std::vector<std::map<std::string, std::string>> named_rows(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = core::csv_cells(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(lines, line)) {
    const std::vector<std::string> cells = core::csv_cells(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

TEST(ScaleCommand, ReplanningSplitsEachCountAsThePlanRanksBestAndKeepsTheBatchPerDevice) {
  const fs::path folder = fresh_output_folder("scale_plan");
  const std::string scenario = std::string(DTSIM_SOURCE_DIR) + "/scenarios/plan/gpt2-medium-a100-x16.yaml";
  const std::string fixed = " --zero 1 --recomputation selective -j 2 -q -o ";
  const CommandResult plan = run_dtsim("plan " + scenario + " --gpus 8,16 --top 1" + fixed + (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const CommandResult scale = run_dtsim("scale " + scenario + " --workers 8,16 --plan" + fixed + (folder / "study").string());
  ASSERT_EQ(scale.exit_status, 0) << scale.err;
  const auto planned = named_rows(read_file(folder / "plan" / "plan.csv"));
  const auto candidates = named_rows(read_file(folder / "plan" / "plan_candidates.csv"));
  const auto scaled = named_rows(read_file(folder / "study" / "scaling.csv"));
  // Each count's best estimate, and beside it the scenario's own split and the best placed as the scenario places
  // its axes where those are others.
  ASSERT_GE(planned.size(), 2U);
  ASSERT_EQ(scaled.size(), 4U);
  // The strong study keeps the scenario's global batch of 32, as the plan does: the same splits, run alike.
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& strong = scaled[2 + i];
    ASSERT_EQ(strong.at("mode"), "strong");
    const auto of_count = [&](const auto& row) { return row.at("devices") == strong.at("workers"); };
    // The estimate's best of this count (plan_candidates.csv lists it first), as plan.csv measured it.
    const auto best = *std::find_if(candidates.begin(), candidates.end(), of_count);
    const auto chosen = *std::find_if(planned.begin(), planned.end(), [&](const auto& row) {
      return of_count(row) && row.at("split") == best.at("split");
    });
    EXPECT_NEAR(std::stod(strong.at("iteration_s")), std::stod(chosen.at("iteration_s")), 1e-6 * std::stod(chosen.at("iteration_s")));
    // Data parallelism alone has no layout to name.
    const bool split = chosen.at("tensor") != "1" || chosen.at("pipeline") != "1";
    EXPECT_EQ(strong.at("layout"),
              split ? fmt::format("t{} p{} d{}", chosen.at("tensor"), chosen.at("pipeline"), chosen.at("data")) : "");
  }
  // Weak scaling keeps the scenario's 2 samples per device (32 over 16) whatever the split.
  for (const auto& [workers, global] : {std::pair{8, 16}, std::pair{16, 32}}) {
    const std::string text = read_file(folder / "study" / "weak.yaml");
    EXPECT_NE(text.find(fmt::format("cluster.workers: {}, ", workers)), std::string::npos) << text;
    EXPECT_NE(text.find(fmt::format("training.batch.global: {}}}", global)), std::string::npos) << text;
  }
  EXPECT_NE(read_file(folder / "study" / "strong.yaml").find("written by `dtsim scale --plan`"), std::string::npos);
}

TEST(ScaleCommand, ReplanningAModelTrainedForRealIsRefusedBeforeAnythingIsWritten) {
  const fs::path folder = fresh_output_folder("scale_plan_real");
  const CommandResult run = run_dtsim("scale " + std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml --workers 2,4 --plan -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("--plan splits a layer table (a `profile:` model), and 'logistic_regression' trains for real"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(folder / "study"));
}

TEST(ScaleCommand, WorkerCountsThatHoldNoWholeReplicasAreRefused) {
  const fs::path folder = fresh_output_folder("scale_split_uneven");
  const CommandResult run =
      run_dtsim("scale " + split_model(folder).string() + " --workers 4,6,8 -o " + (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("a scaling study grows the data-parallel replicas of 4 devices each (tensor 2 x pipeline 2 x "
                         "context 1), and 1 of the worker counts do not hold whole ones"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("worker counts that do: [4, 8]"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(folder / "study"));
}

TEST(ScaleCommand, AWorkerCountGivenTwiceIsRefusedBeforeAnythingIsWritten) {
  const fs::path folder = fresh_output_folder("scale_twice");
  const CommandResult run =
      run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2,2,4 -o " + (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("dtsim scale: error: --workers: the worker count 2 is given twice"), std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(folder / "study"));
}

TEST(ScaleCommand, AScenarioOfSeveralJobsIsRefusedBeforeAnythingIsSimulated) {
  const fs::path folder = fresh_output_folder("scale_jobs");
  const fs::path scenario = folder / "two-jobs.yaml";
  std::ofstream(scenario) << read_file(compute_only(folder))
                          << "jobs:\n  - {name: a, workers: 2}\n  - {name: b, workers: 2}\n";
  const CommandResult run =
      run_dtsim("scale " + scenario.string() + " --workers 2,4 -o " + (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(run.err),
            scenario.string() +
                ":14:5: error: jobs: a scaling study grows one job over the worker counts, and this scenario shares "
                "the cluster between jobs (2 in `jobs`)\n"
                "  hint: scale one job's scenario: its sections at the top level, without `jobs:`\n");
  EXPECT_FALSE(fs::exists(folder / "study"));
}

TEST(ScaleCommand, AFolderOfOtherFilesIsRefusedAndLeftAsItWas) {
  const fs::path folder = fresh_output_folder("scale_foreign");
  fs::create_directories(folder / "study");
  std::ofstream(folder / "study" / "notes.txt") << "mine";
  const CommandResult run = run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2 -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("the folder holds 'notes.txt', which is not part of a scaling study"), std::string::npos) << run.err;
  EXPECT_EQ(read_file(folder / "study" / "notes.txt"), "mine");
  EXPECT_FALSE(fs::exists(folder / "study" / "weak.yaml"));
}

// A study of one mode into the folder of a study of the other replaces it whole: the earlier mode's runs and
// scenario go with the rest.
TEST(ScaleCommand, AStudyOfAnotherModeReplacesTheEarlierStudy) {
  const fs::path folder = fresh_output_folder("scale_other_mode");
  const std::string scale = "scale " + compute_only(folder).string() + " --workers 1,2 -j 2 -q -o " +
                            (folder / "study").string() + " --mode ";
  const CommandResult weak = run_dtsim(scale + "weak");
  ASSERT_EQ(weak.exit_status, 0) << weak.err;
  ASSERT_TRUE(fs::is_directory(folder / "study" / "weak"));
  const CommandResult strong = run_dtsim(scale + "strong");
  ASSERT_EQ(strong.exit_status, 0) << strong.err;
  EXPECT_FALSE(fs::exists(folder / "study" / "weak"));
  EXPECT_FALSE(fs::exists(folder / "study" / "weak.yaml"));
  EXPECT_TRUE(fs::is_directory(folder / "study" / "strong"));
  EXPECT_TRUE(fs::exists(folder / "study" / "strong.yaml"));
  const auto rows = csv_rows(read_file(folder / "study" / "scaling.csv"));
  ASSERT_EQ(rows.size(), 3U);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i][0], "strong");
}

// -o naming a symbolic link to nothing is refused before anything is simulated, with --plan or without.
TEST(ScaleCommand, AnOutputFolderThatIsALinkToNothingIsRefused) {
  const fs::path folder = fresh_output_folder("scale_dangling_link");
  const fs::path link = folder / "danglink";
  fs::create_symlink("nonexist_target", link);
  const std::string expected = link.string() +
                               ": error: the output folder of a scaling study is a symbolic link to 'nonexist_target', "
                               "which does not exist\n"
                               "  hint: create the folder the link points to, or give another folder with -o\n";
  const CommandResult scale =
      run_dtsim("scale " + compute_only(folder).string() + " --workers 1,2 -o " + link.string());
  EXPECT_EQ(scale.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(scale.err), expected);
  const CommandResult planned = run_dtsim("scale " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                          " --workers 16 --plan -o " + link.string());
  EXPECT_EQ(planned.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(planned.err), expected);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_FALSE(fs::exists(folder / "nonexist_target"));
}

// A count no candidate fits under --plan is refused as `dtsim plan` refuses it, naming the fixed flag that leaves no
// split as it was given (a tensor degree of 3 divides no count of 8 devices).
TEST(ScaleCommand, ReplanningACountNoCandidateFitsNamesTheFixedFlagsAsGiven) {
  const fs::path folder = fresh_output_folder("scale_plan_unfit");
  const fs::path scenario = scenario_path("plan/gpt2-medium-a100-x16.yaml");
  const CommandResult run = run_dtsim("scale " + scenario.string() + " --workers 8 --plan --tensor 3 -o " +
                                      (folder / "study").string());
  EXPECT_EQ(run.exit_status, 2);
  // Weak scaling comes first, keeping the scenario's 2 samples per device: 16 over 8 devices.
  EXPECT_EQ(without_sanitizer_notices(run.err),
            scenario.string() +
                ": error: training.parallelism: no split of the model over 8 devices with a global batch of 16 fits: "
                "the choices fixed leave no candidate\n"
                "  hint: --tensor 3 rules out every split of 8 devices: change it or leave it out\n");
  EXPECT_FALSE(fs::exists(folder / "study"));
}

}  // namespace
}  // namespace dtsim::testing
