#include "run_dtsim.hpp"

#include "sim/core/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace dtsim::testing {
namespace {

void run_into(const std::filesystem::path& folder, const std::string& scenario, const std::string& extra = "") {
  const CommandResult run = run_dtsim("run " + scenario_path(scenario).string() + " -q -o " + folder.string() + extra);
  ASSERT_EQ(run.exit_status, 0) << run.err;
}

// Every synchronization strategy, async ones included: their events are ordered by the simulator.
const std::vector<std::string> kScenarios{"quickstart.yaml",
                                          "teaching/01-parameter-server.yaml",
                                          "compare/straggler.yaml",
                                          "compare/straggler-ssp.yaml",
                                          "compare/straggler-adaptive-ssp.yaml",
                                          "compare/straggler-approximate.yaml",
                                          "compare/straggler-async.yaml",
                                          "compare/straggler-staleness-aware.yaml",
                                          "compare/straggler-local-sgd.yaml",
                                          "compare/straggler-gossip.yaml",
                                          "compare/allreduce-straggler-ssp.yaml",
                                          "models/glove-zipf-async.yaml",
                                          "models/clicks-logistic.yaml",
                                          "faults/unsteady-cluster.yaml",
                                          "faults/random-failures-async.yaml",
                                          "faults/link-failure-ring.yaml",
                                          "faults/server-failure.yaml"};

std::string short_name(std::size_t index) {
  std::string name = std::filesystem::path(kScenarios.at(index)).stem().string();
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class Determinism : public ::testing::TestWithParam<std::string> {};

TEST_P(Determinism, SameSeedSameBytesDifferentSeedDifferentBytes) {
  const std::string scenario = GetParam();
  const auto root = fresh_output_folder("determinism-" + std::to_string(core::stable_hash(scenario)));
  run_into(root / "first", scenario);
  run_into(root / "second", scenario);
  run_into(root / "other_seed", scenario, " --seed 12345");
  for (const char* file : {"summary.json", "metrics.csv", "links.csv"}) {
    const std::string first = read_file(root / "first" / file);
    ASSERT_FALSE(first.empty()) << file;
    EXPECT_EQ(first, read_file(root / "second" / file)) << file << " differs between two runs with the same seed";
  }
  // The bytes a lock-step run moves do not depend on the data; the losses do.
  for (const char* file : {"summary.json", "metrics.csv"}) {
    EXPECT_NE(read_file(root / "first" / file), read_file(root / "other_seed" / file)) << file << " did not change with the seed";
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Determinism, ::testing::ValuesIn(kScenarios),
                         [](const auto& param_info) { return short_name(param_info.index); });

TEST(SweepDeterminism, EveryPointAndTheSweepTableAreTheSameBytesTwice) {
  const auto root = fresh_output_folder("determinism-sweep");
  run_into(root / "first", "teaching/02-learning-rate-sweep.yaml");
  run_into(root / "second", "teaching/02-learning-rate-sweep.yaml");
  const std::string table = read_file(root / "first" / "sweep.csv");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 4) << table;  // header and three points
  EXPECT_EQ(table, read_file(root / "second" / "sweep.csv"));
  for (const char* point : {"learning_rate=0.02", "learning_rate=0.5", "learning_rate=4.0"}) {
    for (const char* file : {"summary.json", "metrics.csv"}) {
      const std::string first = read_file(root / "first" / point / file);
      ASSERT_FALSE(first.empty()) << point << "/" << file;
      EXPECT_EQ(first, read_file(root / "second" / point / file)) << point << "/" << file;
    }
  }
  // The learning rate reached each point's run.
  EXPECT_NE(read_file(root / "first" / "learning_rate=0.02" / "metrics.csv"),
            read_file(root / "first" / "learning_rate=4.0" / "metrics.csv"));
}

// Timing-only runs have no data, so no seed to change them: the same bytes every time, point by point.
TEST(ProfileDeterminism, TimingOnlyPointsAreTheSameBytesTwice) {
  const auto root = fresh_output_folder("determinism-profile");
  run_into(root / "first", "profiles/gpt2-large-dgx-h100.yaml");
  run_into(root / "second", "profiles/gpt2-large-dgx-h100.yaml");
  EXPECT_EQ(read_file(root / "first" / "sweep.csv"), read_file(root / "second" / "sweep.csv"));
  for (const char* point : {"algorithm=ring", "algorithm=hierarchical"}) {
    for (const char* file : {"summary.json", "metrics.csv", "links.csv"}) {
      const std::string first = read_file(root / "first" / point / file);
      ASSERT_FALSE(first.empty()) << point << "/" << file;
      EXPECT_EQ(first, read_file(root / "second" / point / file)) << point << "/" << file;
    }
  }
}

// Random stragglers draw from the seed: the same bytes twice, other bytes (other slow steps) for another seed.
TEST(RandomStragglerDeterminism, SameSeedSameBytesPointByPoint) {
  const auto root = fresh_output_folder("determinism-random-stragglers");
  run_into(root / "first", "faults/random-stragglers.yaml");
  run_into(root / "second", "faults/random-stragglers.yaml");
  run_into(root / "other_seed", "faults/random-stragglers.yaml", " --seed 77");
  for (const char* point : {"strategy=bsp", "strategy=async"}) {
    for (const char* file : {"summary.json", "metrics.csv", "links.csv"}) {
      const std::string first = read_file(root / "first" / point / file);
      ASSERT_FALSE(first.empty()) << point << "/" << file;
      EXPECT_EQ(first, read_file(root / "second" / point / file)) << point << "/" << file;
    }
    EXPECT_NE(read_file(root / "first" / point / "summary.json"), read_file(root / "other_seed" / point / "summary.json"));
  }
}

// Energy runs read the plugins' joules into summary.json and metrics.csv: the same bytes twice, point by point.
TEST(EnergyDeterminism, EnergyFiguresAreTheSameBytesTwice) {
  const auto root = fresh_output_folder("determinism-energy");
  run_into(root / "first", "energy/cost-of-waiting.yaml");
  run_into(root / "second", "energy/cost-of-waiting.yaml");
  EXPECT_EQ(read_file(root / "first" / "sweep.csv"), read_file(root / "second" / "sweep.csv"));
  for (const char* point : {"slowdown=1", "slowdown=4"}) {
    for (const auto& [file, key] : {std::pair{"summary.json", "waiting_j"}, std::pair{"metrics.csv", "energy_j"}}) {
      const std::string first = read_file(root / "first" / point / file);
      ASSERT_NE(first.find(key), std::string::npos) << point << "/" << file;
      EXPECT_EQ(first, read_file(root / "second" / point / file)) << point << "/" << file;
    }
  }
}

TEST(SweepRun, OnePointRunsAloneIntoTheGivenFolder) {
  const auto root = fresh_output_folder("sweep-point");
  const CommandResult run = run_dtsim("run " + scenario_path("teaching/02-learning-rate-sweep.yaml").string() +
                                      " -q --point learning_rate=0.5 -o " + (root / "one").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(read_file(root / "one" / "summary.json").find("\"sweep_point\": \"learning_rate=0.5\""), std::string::npos);
  const CommandResult missing = run_dtsim("run " + scenario_path("teaching/02-learning-rate-sweep.yaml").string() +
                                          " -q --point learning_rate=9 -o " + (root / "two").string());
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_NE(missing.err.find("no sweep point 'learning_rate=9'"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(root / "two"));
}

}  // namespace
}  // namespace dtsim::testing
