// `dtsim sweep` and --slurm refusals that need no cluster: a scenario without a sweep, options that do not
// go together, sbatch missing or refusing the job. Each exits 2 and writes nothing. (The sweep through a
// real Slurm is tests/slurm/slurm_sweep_test.sh.)

#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace dtsim::testing {
namespace {

/// PATH set to `path` while in scope: what dtsim finds of Slurm's commands.
class PathSetTo {
 public:
  explicit PathSetTo(const std::string& path) : saved_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    ::setenv("PATH", path.c_str(), 1);
  }
  ~PathSetTo() { ::setenv("PATH", saved_.c_str(), 1); }
  PathSetTo(const PathSetTo&) = delete;
  PathSetTo& operator=(const PathSetTo&) = delete;

 private:
  std::string saved_;
};

const std::string kSweep = scenario_path("teaching/06-servers-on-a-fat-tree.yaml").string();

TEST(SweepCommand, RefusesAScenarioWithoutASweep) {
  const auto folder = fresh_output_folder("sweep-without-sweep");
  const CommandResult result = run_dtsim("sweep " + scenario_path("quickstart.yaml").string() + " -o " + (folder / "out").string());
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_NE(result.err.find("error: sweep: dtsim sweep runs the points of a sweep, and the scenario has no sweep"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

TEST(SweepCommand, SlurmRefusesASingleRunAndAPoint) {
  const auto folder = fresh_output_folder("slurm-refusals");
  const CommandResult single = run_dtsim("run " + scenario_path("quickstart.yaml").string() + " --slurm -o " + (folder / "a").string());
  EXPECT_EQ(single.exit_status, 2);
  EXPECT_NE(single.err.find("error: --slurm: --slurm runs a sweep's points as a Slurm job array, and the scenario has no sweep"),
            std::string::npos)
      << single.err;
  const CommandResult point = run_dtsim("sweep " + kSweep + " --slurm --point shards=2 -o " + (folder / "b").string());
  EXPECT_EQ(point.exit_status, 2);
  EXPECT_NE(point.err.find("--slurm submits every point of the sweep, and --point names one"), std::string::npos) << point.err;
  const CommandResult options = run_dtsim("sweep " + kSweep + " --sbatch --partition=debug -o " + (folder / "c").string());
  EXPECT_EQ(options.exit_status, 2);
  EXPECT_NE(options.err.find("--sbatch: applies with --slurm"), std::string::npos) << options.err;
  EXPECT_TRUE(std::filesystem::is_empty(folder));
}

TEST(SweepCommand, WithoutSbatchOnThePathNothingIsSubmittedOrWritten) {
  const auto folder = fresh_output_folder("slurm-missing");
  const PathSetTo path((folder / "nothing-here").string());
  const CommandResult result = run_dtsim("sweep " + kSweep + " --slurm -o " + (folder / "out").string());
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_NE(result.err.find("error: --slurm: sbatch was not found on the PATH"), std::string::npos) << result.err;
  EXPECT_TRUE(std::filesystem::is_empty(folder)) << "nothing, not even a staging folder";
}

TEST(SweepCommand, SbatchsRefusalIsShownWithItsOwnWords) {
  const auto folder = fresh_output_folder("slurm-refused");
  const auto bin = folder / "bin";
  std::filesystem::create_directories(bin);
  {
    std::ofstream sbatch(bin / "sbatch");
    sbatch << "#!/bin/sh\necho 'sbatch: error: invalid partition specified: nope' >&2\nexit 1\n";
  }
  std::filesystem::permissions(bin / "sbatch", std::filesystem::perms::owner_all);
  const PathSetTo path(bin.string() + ":/usr/bin:/bin");
  const CommandResult result =
      run_dtsim("sweep " + kSweep + " --slurm --sbatch --partition=nope -o " + (folder / "out").string());
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_NE(result.err.find("sbatch refused the job array: sbatch: error: invalid partition specified: nope"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

}  // namespace
}  // namespace dtsim::testing
