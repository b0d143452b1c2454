#include "run_dtsim.hpp"

#include "sim/core/rng.hpp"

#include <gtest/gtest.h>

namespace dtsim::testing {
namespace {

void run_into(const std::filesystem::path& folder, const std::string& scenario, const std::string& extra = "") {
  const CommandResult run = run_dtsim("run " + scenario_path(scenario).string() + " -q -o " + folder.string() + extra);
  ASSERT_EQ(run.exit_status, 0) << run.err;
}

class Determinism : public ::testing::TestWithParam<std::string> {};

TEST_P(Determinism, SameSeedSameBytesDifferentSeedDifferentBytes) {
  const std::string scenario = GetParam();
  const auto root = fresh_output_folder("determinism-" + std::to_string(core::stable_hash(scenario)));
  run_into(root / "first", scenario);
  run_into(root / "second", scenario);
  run_into(root / "other_seed", scenario, " --seed 12345");
  for (const char* file : {"summary.json", "metrics.csv"}) {
    const std::string first = read_file(root / "first" / file);
    ASSERT_FALSE(first.empty()) << file;
    EXPECT_EQ(first, read_file(root / "second" / file)) << file << " differs between two runs with the same seed";
    EXPECT_NE(first, read_file(root / "other_seed" / file)) << file << " did not change with the seed";
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Determinism,
                         ::testing::Values("quickstart.yaml", "teaching/01-parameter-server.yaml"),
                         [](const auto& param_info) { return param_info.index == 0 ? "quickstart" : "parameter_server"; });

}  // namespace
}  // namespace dtsim::testing
