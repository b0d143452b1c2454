// What is on disk after a run or a sweep that cannot write, is refused, or is interrupted: the complete
// previous results or the complete new ones, never a mix, and nothing before the simulation when the folder
// cannot take results.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <thread>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

/// Every file under `folder` (hidden ones too) with its bytes.
std::map<std::string, std::string> contents(const fs::path& folder) {
  std::map<std::string, std::string> files;
  if (!fs::exists(folder)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) files[fs::relative(entry.path(), folder).string()] = read_file(entry.path());
  }
  return files;
}

std::vector<std::string> hidden_entries(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().filename().string().front() == '.') names.push_back(entry.path().filename().string());
  }
  return names;
}

/// A quickstart with its own seed: the same files each time for one seed, other files for another.
fs::path small_scenario(const fs::path& folder, int seed, bool sweep = false) {
  const fs::path file = folder / ((sweep ? "sweep-" : "run-") + std::to_string(seed) + ".yaml");
  std::ofstream out(file);
  out << "include: " << scenario_path("quickstart.yaml").string() << "\nseed: " << seed << "\n";
  if (sweep) out << "sweep:\n  axes:\n    training.batch.per_worker: [16, 32, 64]\n";
  return file;
}

/// Starts `dtsim <arguments...>` with its output discarded; returns its process id.
pid_t start_dtsim(const std::vector<std::string>& arguments) {
  std::vector<std::string> all{DTSIM_BINARY};
  all.insert(all.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& argument : all) argv.push_back(argument.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Processes whose command line mentions `text`.
int processes_mentioning(const std::string& text) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string command = read_file(entry.path() / "cmdline");
    if (command.find(text) != std::string::npos && ::getpid() != std::stoi(name)) ++count;
  }
  return count;
}


TEST(ResultFolder, AFileAsTheFolderIsRefusedBeforeAnySimulation) {
  const auto folder = fresh_output_folder("result_folder_file");
  std::ofstream(folder / "taken") << "mine";
  const CommandResult run = run_dtsim("run " + small_scenario(folder, 1, true).string() + " -o " + (folder / "taken").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, (folder / "taken").string() + ": error: is a file, not a folder\n  hint: choose another folder with -o\n");
  EXPECT_EQ(run.out, "") << "no sweep point may run before the folder is checked";
  EXPECT_EQ(read_file(folder / "taken"), "mine");
}

TEST(ResultFolder, ANameTooLongIsRefusedBeforeAnySimulation) {
  const auto folder = fresh_output_folder("result_folder_long");
  const std::string name(300, 'a');
  const CommandResult run = run_dtsim("run " + small_scenario(folder, 1, true).string() + " -o " + (folder / name).string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find("error: a name in the folder's path is 300 bytes long, more than the 255 a file system allows"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(ResultFolder, AFolderThatCannotBeCreatedIsRefusedBeforeAnySimulation) {
  const auto folder = fresh_output_folder("result_folder_unwritable");
  const CommandResult run = run_dtsim("run " + small_scenario(folder, 1, true).string() + " -o /proc/dtsim/out");
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err.rfind("/proc/dtsim/out: error: cannot create a folder in /proc: ", 0), 0U) << run.err;
  EXPECT_EQ(run.out, "");
}

// Run from a working folder deleted under the shell, a relative result folder (out/<name> by default) has nowhere
// to go: refused as bad input before the simulation, never an internal error.
TEST(ResultFolder, ARelativeFolderInADeletedWorkingFolderIsRefusedBeforeAnySimulation) {
  const auto folder = fresh_output_folder("result_folder_deleted_cwd");
  const fs::path scenario = small_scenario(folder, 1);
  fs::create_directories(folder / "gone");
  ASSERT_EQ(::chdir((folder / "gone").c_str()), 0);
  fs::remove(folder / "gone");
  const CommandResult run = run_dtsim("run " + scenario.string() + " -q");
  ASSERT_EQ(::chdir(folder.c_str()), 0);
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, "out/quickstart: error: is relative to the working folder, which no longer exists\n"
                     "  hint: run dtsim from a folder that exists, or give an absolute folder with -o\n");
  EXPECT_EQ(run.out, "");
}

TEST(ResultFolder, AFolderHoldingOtherFilesIsNotTouched) {
  const auto folder = fresh_output_folder("result_folder_foreign");
  fs::create_directories(folder / "mine");
  std::ofstream(folder / "mine" / "notes.txt") << "keep";
  const CommandResult run = run_dtsim("run " + small_scenario(folder, 1).string() + " -o " + (folder / "mine").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, (folder / "mine").string() +
                         ": error: holds files that are not dtsim results (such as notes.txt); dtsim replaces a result "
                         "folder as a whole\n  hint: choose a new or empty folder with -o\n");
  EXPECT_EQ(contents(folder / "mine"), (std::map<std::string, std::string>{{"notes.txt", "keep"}}));
}

// A summary.json that dtsim did not write (or a pipe of that name) does not make a folder dtsim's to replace.
TEST(ResultFolder, AFileNamedLikeASummaryIsNotAResultFolder) {
  const auto folder = fresh_output_folder("result_folder_lookalike");
  fs::create_directories(folder / "other");
  std::ofstream(folder / "other" / "summary.json") << "{}";
  std::ofstream(folder / "other" / "important.txt") << "keep";
  const CommandResult run = run_dtsim("run " + small_scenario(folder, 1).string() + " -q -o " + (folder / "other").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_NE(run.err.find(": error: holds files that are not dtsim results (such as "), std::string::npos) << run.err;
  EXPECT_EQ(contents(folder / "other"),
            (std::map<std::string, std::string>{{"important.txt", "keep"}, {"summary.json", "{}"}}));
  fs::create_directories(folder / "piped");
  ASSERT_EQ(::mkfifo((folder / "piped" / "summary.json").c_str(), 0600), 0);
  const CommandResult piped = run_dtsim("run " + small_scenario(folder, 1).string() + " -q -o " + (folder / "piped").string());
  EXPECT_EQ(piped.exit_status, 2);
  EXPECT_TRUE(fs::is_fifo(folder / "piped" / "summary.json"));
}

TEST(ResultFolder, ARerunReplacesTheWholeFolder) {
  const auto folder = fresh_output_folder("result_folder_rerun");
  ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 1).string() + " -q -o " + (folder / "a").string()).exit_status, 0);
  ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 2).string() + " -q -o " + (folder / "b").string()).exit_status, 0);
  std::ofstream(folder / "a" / "trace.json") << "{}";  // a file the new results do not have
  ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 2).string() + " -q -o " + (folder / "a").string()).exit_status, 0);
  EXPECT_EQ(contents(folder / "a"), contents(folder / "b"));
  EXPECT_EQ(hidden_entries(folder), std::vector<std::string>{});
}

// The file-size limit makes every write past its first kilobyte fail, as a full disk would.
TEST(ResultFolder, AFailedWriteIsAClearErrorAndKeepsThePreviousResults) {
  const auto folder = fresh_output_folder("result_folder_full");
  ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 1).string() + " -q -o " + (folder / "out").string()).exit_status, 0);
  const auto before = contents(folder / "out");
  const std::string limited = "sh -c \"trap '' XFSZ; ulimit -f 2; exec " + std::string(DTSIM_BINARY) + " run " +
                              small_scenario(folder, 2).string() + " -q -o " + (folder / "out").string() + "\"";
  const std::string capture = (folder / "err").string();
  const int status = std::system((limited + " 2> " + capture).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string err = without_sanitizer_notices(read_file(capture));
  EXPECT_EQ(err.rfind((folder / "out").string() + "/summary.json: error: cannot write the results: File too large\n", 0), 0U)
      << err;
  EXPECT_EQ(contents(folder / "out"), before);
  EXPECT_EQ(hidden_entries(folder), std::vector<std::string>{});
}

// Interrupted at any moment, a run leaves the complete previous results or the complete new ones.
TEST(ResultFolder, ARunInterruptedAtAnyMomentLeavesOldOrNewResults) {
  const auto folder = fresh_output_folder("result_folder_interrupted_run");
  const auto out = folder / "out";
  ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 1).string() + " -q -o " + (folder / "new").string()).exit_status, 0);
  ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 2).string() + " -q -o " + out.string()).exit_status, 0);
  const auto old_results = contents(out);
  const auto new_results = contents(folder / "new");
  int interrupted = 0;
  for (int delay_ms = 0; delay_ms <= 400; delay_ms += 50) {
    const pid_t run = start_dtsim({"run", small_scenario(folder, 1).string(), "-q", "-o", out.string()});
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(run, delay_ms % 100 == 0 ? SIGTERM : SIGINT);
    const int status = wait_for(run);
    EXPECT_TRUE(status == 0 || status == 130 || status == 143) << status;
    if (status != 0) ++interrupted;
    const auto now = contents(out);
    EXPECT_TRUE(now == old_results || now == new_results) << "after " << delay_ms << " ms";
    // Back to the old results for the next try.
    ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 2).string() + " -q -o " + out.string()).exit_status, 0);
  }
  EXPECT_GT(interrupted, 0);
  EXPECT_EQ(hidden_entries(folder), std::vector<std::string>{});
}

/// A two-point sweep whose second point runs sixty times as long as its first: a signal sent once the first
/// point is done finds the second still running, however busy the machine.
fs::path sweep_with_a_long_second_point(const fs::path& folder, int seed) {
  const fs::path file = folder / ("long-sweep-" + std::to_string(seed) + ".yaml");
  std::ofstream out(file);
  out << "include: " << scenario_path("quickstart.yaml").string() << "\nseed: " << seed
      << "\nsweep:\n  axes:\n    training.stop.epochs: [1, 60]\n";
  return file;
}

// SIGTERM to a sweep stops its running point (no process outlives it), exits 143, and leaves the previous
// sweep whole; the same sweep run again goes on from the points it had finished, and is then complete.
TEST(ResultFolder, AnInterruptedSweepStopsItsChildAndNeverMixesSweeps) {
  const auto folder = fresh_output_folder("result_folder_interrupted_sweep");
  const auto out = folder / "sweep-out";
  ASSERT_EQ(run_dtsim("run " + small_scenario(folder, 1, true).string() + " -q -o " + out.string()).exit_status, 0);
  const auto old_sweep = contents(out);
  const std::string sweep_file = sweep_with_a_long_second_point(folder, 2).string();
  ASSERT_EQ(run_dtsim("run " + sweep_file + " -q -j 1 -o " + (folder / "reference").string()).exit_status, 0);
  const auto new_sweep = contents(folder / "reference");
  ASSERT_NE(old_sweep, new_sweep);

  const pid_t sweep = start_dtsim({"run", sweep_file, "-j", "1", "-o", out.string()});
  // Once the first point's folder is done, the sweep is busy with the second.
  const auto staged_first_point = [&] {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().filename().string().rfind(".sweep-out.sweep-", 0) == 0 &&
          fs::exists(entry.path() / "epochs=1" / "summary.json")) {
        return true;
      }
    }
    return false;
  };
  for (int waited = 0; !staged_first_point() && waited < 6000; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(sweep, SIGTERM);
  EXPECT_EQ(wait_for(sweep), 143);
  EXPECT_EQ(processes_mentioning(out.string()), 0);
  EXPECT_EQ(contents(out), old_sweep);

  const CommandResult rerun = run_dtsim("run " + sweep_file + " -j 1 -o " + out.string());
  EXPECT_EQ(rerun.exit_status, 0) << rerun.err;
  EXPECT_NE(rerun.out.find("[1/2] epochs=1 (done before)"), std::string::npos) << rerun.out;
  EXPECT_EQ(contents(out), new_sweep);
  EXPECT_EQ(hidden_entries(folder), std::vector<std::string>{});
}

// A study's generated scenario is staged with its sweep's points: a scaling study stopped over an earlier study's
// folder leaves the earlier scenario beside the earlier results, and run again to its end, its own beside its own.
TEST(ResultFolder, AnInterruptedStudyLeavesTheEarlierScenarioBesideTheEarlierResults) {
  const auto folder = fresh_output_folder("result_folder_interrupted_study");
  const fs::path scenario = folder / "long.yaml";
  std::ofstream(scenario) << "include: " << scenario_path("quickstart.yaml").string()
                          << "\nseed: 1\ntraining:\n  stop: {epochs: 20}\n";
  const fs::path study = folder / "study";
  const std::string scale_command = "scale " + scenario.string() + " --mode weak -q -j 1 -o " + study.string();
  ASSERT_EQ(run_dtsim(scale_command + " --workers 1,2").exit_status, 0);
  const std::string earlier_scenario = read_file(study / "weak.yaml");
  const auto earlier_results = contents(study / "weak");

  const pid_t scale = start_dtsim(
      {"scale", scenario.string(), "--mode", "weak", "-q", "-j", "1", "-o", study.string(), "--workers", "1,2,4"});
  // Once its first point is done, the study is busy with the two others.
  const auto staged_first_point = [&] {
    for (const auto& entry : fs::directory_iterator(study)) {
      const bool staging = entry.path().filename().string().rfind(".weak.sweep-", 0) == 0;
      if (staging && fs::exists(entry.path() / "workers=1" / "summary.json")) return true;
    }
    return false;
  };
  for (int waited = 0; !staged_first_point() && waited < 6000; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(scale, SIGTERM);
  EXPECT_EQ(wait_for(scale), 143);
  EXPECT_EQ(read_file(study / "weak.yaml"), earlier_scenario);
  EXPECT_EQ(contents(study / "weak"), earlier_results);

  const CommandResult rerun = run_dtsim(scale_command + " --workers 1,2,4");
  EXPECT_EQ(rerun.exit_status, 0) << rerun.err;
  EXPECT_NE(read_file(study / "weak.yaml").find("cluster.workers: [1, 2, 4]"), std::string::npos);
  EXPECT_TRUE(fs::exists(study / "weak" / "workers=4" / "summary.json"));
  EXPECT_FALSE(fs::exists(study / "weak" / "weak.yaml"));
  EXPECT_EQ(hidden_entries(study), std::vector<std::string>{});
}

// A commit swaps the new sweep into place and then deletes the previous one from the staging folder; stopped
// between the two, it leaves the previous sweep's points under the new sweep's staging name. The same sweep run
// again must not take them for its own.
TEST(ResultFolder, PreviousResultsLeftInTheStagingFolderAreNeverTakenForThisSweepsPoints) {
  const auto folder = fresh_output_folder("result_folder_left_by_a_commit");
  const auto out = folder / "out";
  const std::string other = small_scenario(folder, 1, true).string();
  const std::string ours = small_scenario(folder, 2, true).string();
  ASSERT_EQ(run_dtsim("run " + other + " -q -o " + (folder / "other").string()).exit_status, 0);
  ASSERT_EQ(run_dtsim("run " + ours + " -q -o " + out.string()).exit_status, 0);
  const auto ours_results = contents(out);
  const std::string fingerprint = nlohmann::json::parse(read_file(out / "sweep.json"))["fingerprint"];
  const fs::path staging = folder / (".out.sweep-" + fingerprint);
  fs::copy(folder / "other", staging, fs::copy_options::recursive);

  const CommandResult rerun = run_dtsim("run " + ours + " -o " + out.string());
  ASSERT_EQ(rerun.exit_status, 0) << rerun.err;
  EXPECT_EQ(contents(out), ours_results);
  EXPECT_EQ(hidden_entries(folder), std::vector<std::string>{});
}

// A finished sweep run again skips every point (its folder unchanged); --force runs them all again, to the
// same bytes.
TEST(ResultFolder, AFinishedSweepRunAgainSkipsItsPointsAndForceRunsThemAgain) {
  const auto folder = fresh_output_folder("result_folder_sweep_rerun");
  const auto out = folder / "out";
  const std::string run = "run " + small_scenario(folder, 4, true).string() + " -o " + out.string();
  ASSERT_EQ(run_dtsim(run).exit_status, 0);
  const auto first = contents(out);
  const CommandResult again = run_dtsim(run);
  ASSERT_EQ(again.exit_status, 0) << again.err;
  for (const char* point : {"[1/3] per_worker=16 (done before)", "[2/3] per_worker=32 (done before)",
                            "[3/3] per_worker=64 (done before)"}) {
    EXPECT_NE(again.out.find(point), std::string::npos) << again.out;
  }
  EXPECT_EQ(contents(out), first);
  const CommandResult forced = run_dtsim(run + " --force");
  ASSERT_EQ(forced.exit_status, 0) << forced.err;
  EXPECT_EQ(forced.out.find("done before"), std::string::npos) << forced.out;
  EXPECT_EQ(contents(out), first);
  EXPECT_EQ(hidden_entries(folder), std::vector<std::string>{});
}

// Points run side by side give the same folder as one at a time; sweep.csv has a column per axis.
TEST(ResultFolder, ASweepsPointsInParallelGiveTheSameFilesAsOneAtATime) {
  const auto folder = fresh_output_folder("result_folder_sweep_jobs");
  const fs::path scenario = small_scenario(folder, 5, true);
  ASSERT_EQ(run_dtsim("run " + scenario.string() + " -q -j 1 -o " + (folder / "serial").string()).exit_status, 0);
  const CommandResult parallel = run_dtsim("run " + scenario.string() + " -j 3 -o " + (folder / "parallel").string());
  ASSERT_EQ(parallel.exit_status, 0) << parallel.err;
  EXPECT_EQ(contents(folder / "parallel"), contents(folder / "serial"));
  const std::string csv = read_file(folder / "serial" / "sweep.csv");
  EXPECT_EQ(csv.rfind("point,training.batch.per_worker,iterations,simulated_s,", 0), 0U) << csv;
  EXPECT_NE(csv.find("\n\"per_worker=32\",32,"), std::string::npos) << csv;
  EXPECT_NE(parallel.out.find("per_worker=64"), std::string::npos) << "the sweep ends with its results table";
  EXPECT_NE(parallel.out.find("final loss"), std::string::npos) << parallel.out;
}

// A previous result folder whose summary.json became a folder is no result folder (used to end in an internal
// error after the whole simulation), and is left alone; a scenario file name that is not UTF-8 gives results.
TEST(ResultFolder, OddNamesAndOddPreviousFoldersStillGiveResults) {
  const auto folder = fresh_output_folder("result_folder_odd");
  fs::create_directories(folder / "odd" / "summary.json");
  const fs::path odd = folder / "caf\xe9-\xff.yaml";
  fs::copy_file(small_scenario(folder, 1), odd);
  const CommandResult refused = run_dtsim("run '" + odd.string() + "' -q -o " + (folder / "odd").string());
  EXPECT_EQ(refused.exit_status, 2) << refused.err;
  EXPECT_TRUE(fs::is_directory(folder / "odd" / "summary.json"));
  const CommandResult run = run_dtsim("run '" + odd.string() + "' -q -o " + (folder / "out").string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_TRUE(fs::is_regular_file(folder / "out" / "summary.json"));
  const std::string summary = read_file(folder / "out" / "summary.json");
  EXPECT_NE(summary.find("caf\xef\xbf\xbd-\xef\xbf\xbd.yaml"), std::string::npos) << "bytes that are not UTF-8 become U+FFFD";
}

}  // namespace
}  // namespace dtsim::testing
