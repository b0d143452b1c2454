#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace dtsim::testing {
namespace {

long line_count(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(BadInput, MissingScenarioFileIsOneLineExitTwoNoOutput) {
  const auto folder = fresh_output_folder("missing_file");
  const auto missing = folder / "no_such_scenario.yaml";
  const CommandResult run = run_dtsim("run " + missing.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, missing.string() + ": error: cannot read scenario file: No such file or directory\n");
  EXPECT_EQ(line_count(run.err), 1);
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

TEST(BadInput, FileThatIsNotYamlIsOneLineExitTwoNoOutput) {
  const auto folder = fresh_output_folder("not_yaml");
  const auto broken = folder / "broken.yaml";
  std::ofstream(broken) << "name: [this is\n  not: closed\n";
  const CommandResult run = run_dtsim("run " + broken.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err.rfind(broken.string() + ":", 0), 0U) << run.err;
  EXPECT_NE(run.err.find("error: not valid YAML"), std::string::npos) << run.err;
  EXPECT_EQ(line_count(run.err), 1);
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

TEST(BadInput, InvalidScenarioExitsTwoAndWritesNothing) {
  const auto folder = fresh_output_folder("invalid");
  const auto invalid = folder / "invalid.yaml";
  std::ofstream(invalid) << "name: x\ncluster: {workers: 0}\n";
  const CommandResult run = run_dtsim("run " + invalid.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find(invalid.string() + ":2:20: error: cluster.workers: must be between 1 and 65536, got 0"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

TEST(BadInput, ASeedOutsideSixtyFourBitsIsAUsageErrorNotAWrappedNumber) {
  const std::string scenario = scenario_path("quickstart.yaml").string();
  const CommandResult negative = run_dtsim("run " + scenario + " --seed -1");
  EXPECT_EQ(negative.exit_status, 2);
  EXPECT_EQ(negative.err.rfind("--seed: a seed is a whole number from 0 to 18446744073709551615, got '-1'\n", 0), 0U)
      << negative.err;
  const CommandResult large = run_dtsim("run " + scenario + " --seed 18446744073709551616");
  EXPECT_EQ(large.exit_status, 2);
  EXPECT_EQ(large.err.rfind("--seed: a seed is at most 18446744073709551615 (2^64-1), got 18446744073709551616\n", 0), 0U)
      << large.err;
}

TEST(BadInput, ASweepPointThatDoesNotExistListsThePoints) {
  const CommandResult run =
      run_dtsim("run " + scenario_path("faults/straggler-sweep-bsp.yaml").string() + " --point slowdown=3 -o /tmp/never");
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("error: the scenario has no sweep point 'slowdown=3'\n  hint: its points are: slowdown=1, "
                         "slowdown=2, slowdown=4"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists("/tmp/never"));
}

TEST(BadInput, ADeviceIsNotReadAsAScenario) {
  const CommandResult run = run_dtsim("validate /dev/zero");
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, "/dev/zero: error: cannot read scenario file: it is a device, not a file\n");
}

TEST(BadInput, UnknownOptionIsAUsageErrorWithExitTwo) {
  const CommandResult run = run_dtsim("run --frobnicate");
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_FALSE(run.err.empty());
}

// The sanitizer build's notice is left out of what the tests compare; dtsim's own lines are kept whole.
// A real-math model far larger than the machine (two hidden layers of a million units: 4 TB of weights a
// worker) is refused with what it needs and what the machine has, before anything is allocated.
TEST(BadInput, AModelLargerThanTheMachineIsRefusedBeforeAllocating) {
  const auto folder = fresh_output_folder("huge_mlp");
  const auto scenario = folder / "huge.yaml";
  std::ofstream(scenario) << "name: huge\ncluster: {workers: 2, device: {peak_flops: 1GFLOPS}}\n"
                             "topology: {kind: ring, link: {bandwidth: 10Gbps, latency: 5us}}\n"
                             "model: {kind: mlp, layers: [1000000, 1000000]}\ndata: {kind: iris}\n"
                             "training: {batch: {per_worker: 4}, optimizer: {learning_rate: 0.1}, stop: {iterations: 1}}\n";
  const CommandResult run = run_dtsim("run " + scenario.string() + " -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2) << run.err;
  EXPECT_EQ(run.err.rfind(scenario.string() + ":4:15: error: model.kind: 1000009000003 parameters of real values on each "
                          "of 2 workers need at least 25.47 TiB of memory, and this machine has ", 0), 0U) << run.err;
  EXPECT_FALSE(std::filesystem::exists(folder / "out"));
}

// Under `ulimit -f`, a write past the limit is the documented write error (exit 2), not a kill by SIGXFSZ.
TEST(BadInput, AFileSizeLimitIsAWriteErrorNotASignal) {
  const auto folder = fresh_output_folder("file_size_limit");
  const std::string command = "ulimit -f 1 && " + std::string(DTSIM_BINARY) + " run " +
                              scenario_path("quickstart.yaml").string() + " -q -o " + (folder / "out").string() +
                              " 2>" + (folder / "err.txt").string() + "; echo $? >" + (folder / "status.txt").string();
  ASSERT_EQ(std::system(("sh -c '" + command + "'").c_str()), 0);
  EXPECT_EQ(read_file(folder / "status.txt"), "2\n") << read_file(folder / "err.txt");
  EXPECT_NE(read_file(folder / "err.txt").find("error: cannot write the results: File too large"), std::string::npos)
      << read_file(folder / "err.txt");
  EXPECT_FALSE(std::filesystem::exists(folder / "out" / "summary.json"));
}

// A confined scenario chooses no result folder outside the confinement: its outputs.folder, and the default
// out/<name> when the command runs elsewhere, are refused; -o on the command line is the user's own choice.
TEST(BadInput, UnderConfineAScenariosResultFolderOutsideTheFolderIsRefused) {
  const auto folder = fresh_output_folder("confine_writes");
  std::filesystem::create_directories(folder / "jail");
  const auto scenario = folder / "jail" / "s.yaml";
  // The quickstart's 43 lines, then the result folder on line 44.
  std::ofstream(scenario) << read_file(scenario_path("quickstart.yaml")) << "outputs: {folder: " << (folder / "victim").string()
                          << "}\n";
  std::filesystem::create_directories(folder / "victim");
  std::ofstream(folder / "victim" / "summary.json") << "{}";
  const std::string jail = std::filesystem::canonical(folder / "jail").string();
  const CommandResult run = run_dtsim("run " + scenario.string() + " -q --confine " + jail);
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(run.err),
            scenario.string() + ":44:19: error: outputs.folder: the result folder " + (folder / "victim").string() +
                " is outside the folder --confine allows (" + jail +
                ")\n  hint: give the result folder with -o, or name one inside that folder\n");
  EXPECT_EQ(read_file(folder / "victim" / "summary.json"), "{}");
  const CommandResult chosen =
      run_dtsim("run " + scenario.string() + " -q --confine " + jail + " -o " + (folder / "mine").string());
  EXPECT_EQ(chosen.exit_status, 0) << chosen.err;
  EXPECT_TRUE(std::filesystem::exists(folder / "mine" / "summary.json"));
}

// -o names a file to write; a device or a pipe there is refused, never replaced by a regular file.
TEST(BadInput, ReportOntoAPipeIsRefusedAndThePipeKept) {
  const auto folder = fresh_output_folder("report_onto_pipe");
  ASSERT_EQ(run_dtsim("run " + scenario_path("quickstart.yaml").string() + " -q -o " + (folder / "run").string())
                .exit_status,
            0);
  const auto pipe = folder / "pipe";
  ASSERT_EQ(std::system(("mkfifo " + pipe.string()).c_str()), 0);
  const CommandResult run = run_dtsim("report " + (folder / "run").string() + " -o " + pipe.string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(run.err),
            pipe.string() + ": error: is a pipe, not a file; dtsim writes only regular files and folders\n"
                            "  hint: name a new file, or a regular file to replace, with -o\n");
  EXPECT_TRUE(std::filesystem::is_fifo(pipe));
  const CommandResult scale = run_dtsim("scale " + scenario_path("scaling/gpt2-xl.yaml").string() +
                                        " --workers 8,16 -q -o " + pipe.string());
  EXPECT_EQ(scale.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(scale.err),
            pipe.string() + ": error: the output folder of a scaling study is not a folder\n  hint: give a folder with -o\n");
  EXPECT_TRUE(std::filesystem::is_fifo(pipe));
}

TEST(RunDtsim, TheSanitizersNoticeIsLeftOutOfTheErrors) {
  const std::string notice =
      "==20834==WARNING: ASan is ignoring requested __asan_handle_no_return: stack type: default top: 0x7ffe; "
      "bottom 0x7f25; size: 0x00d8 (929874980864)\nFalse positive error reports may follow\n"
      "For details see https://github.com/google/sanitizers/issues/189\n";
  EXPECT_EQ(without_sanitizer_notices(notice + "s.yaml: error: x\n  hint: y\n"), "s.yaml: error: x\n  hint: y\n");
  EXPECT_EQ(without_sanitizer_notices("a\n" + notice + "b"), "a\nb");
  EXPECT_EQ(without_sanitizer_notices("False positive error reports may follow\n"), "False positive error reports may follow\n");
}

}  // namespace
}  // namespace dtsim::testing
