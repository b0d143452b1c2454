#include "sim/app/slurm_sweep.hpp"

#include "sim/app/interrupts.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

namespace dtsim::app {
namespace {

struct CommandOutput {
  int status = 0;      ///< exit status; 127 when the program could not be started
  std::string output;  ///< stdout and stderr together
};

/// Runs `arguments` (the program found on the PATH) and collects what it prints.
CommandOutput capture(const std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));  // NOLINT
  argv.push_back(nullptr);
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error("cannot create a pipe");
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(fmt::format("cannot start {}", arguments.front()));
  if (child == 0) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(pipe_ends[1], STDOUT_FILENO);
    ::dup2(pipe_ends[1], STDERR_FILENO);
    ::close(pipe_ends[0]);
    ::close(pipe_ends[1]);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  CommandOutput out;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(pipe_ends[0], buffer, sizeof buffer);
    if (got > 0) {
      out.output.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_ends[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

core::InputError slurm_error(std::string message, std::string hint) {
  core::Diagnostic diagnostic;
  diagnostic.key = "--slurm";
  diagnostic.message = std::move(message);
  diagnostic.hint = std::move(hint);
  return core::InputError(std::move(diagnostic));
}

/// The array's batch script: task i runs tasks[i]'s command, its output in <folder>/<point>.log.
std::string batch_script(const std::vector<SlurmTask>& tasks, const std::filesystem::path& folder) {
  std::string script = "#!/bin/sh\n# dtsim sweep: one job array task per point\ncase \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    std::string words;
    for (const std::string& argument : tasks[i].command) words += " " + shell_quoted(argument);
    script += fmt::format("  {}) log={}; set --{} ;;\n", i, shell_quoted((folder / (tasks[i].point + ".log")).string()), words);
  }
  script += "  *) echo \"dtsim: no sweep point for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n";
  script += "exec \"$@\" > \"$log\" 2>&1\n";
  return script;
}

/// SIGINT and SIGTERM held while waiting on the queue (taken with sigtimedwait), the old mask back after.
class HeldSignals {
 public:
  HeldSignals() {
    sigemptyset(&held_);
    sigaddset(&held_, SIGINT);
    sigaddset(&held_, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &held_, &previous_);
  }
  ~HeldSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

  /// Waits up to `seconds`; the signal that came, or 0.
  int wait(double seconds) const {
    timespec timeout{};
    timeout.tv_sec = static_cast<time_t>(seconds);
    timeout.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
    const int signal = ::sigtimedwait(&held_, nullptr, &timeout);
    return signal > 0 ? signal : 0;
  }

 private:
  sigset_t held_{};
  sigset_t previous_{};
};

/// Whether job `id` has left the queue; throws after repeated failures to ask.
bool job_gone(const std::string& id, int& failures) {
  const CommandOutput queue = capture({"squeue", "--noheader", "--jobs", id, "--format", "%i"});
  if (queue.status == 0) {
    failures = 0;
    return trimmed(queue.output).empty();
  }
  // Slurm forgets a finished job after MinJobAge; squeue then calls its id invalid.
  if (queue.output.find("Invalid job id") != std::string::npos) return true;
  if (++failures >= 10) {
    throw slurm_error(fmt::format("squeue cannot tell the state of job {}: {}", id, trimmed(queue.output)),
                      fmt::format("the job may still run; `scancel {}` stops it, and the same sweep run again goes on "
                                  "from the points done",
                                  id));
  }
  return false;
}

}  // namespace

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  const std::string folders(path);
  std::size_t start = 0;
  while (start <= folders.size()) {
    const std::size_t end = std::min(folders.find(':', start), folders.size());
    const std::filesystem::path candidate = std::filesystem::path(folders.substr(start, end - start)) / program;
    if (end > start && ::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return true;
    start = end + 1;
  }
  return false;
}

std::vector<std::string> split_options(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::string shell_quoted(const std::string& value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::vector<std::size_t> run_on_slurm(const std::vector<SlurmTask>& tasks, const SlurmSubmission& submission,
                                      const std::function<bool(std::size_t)>& done,
                                      const std::function<void(std::size_t)>& finished) {
  if (tasks.empty()) return {};
  std::filesystem::create_directories(submission.folder);
  const std::filesystem::path script = submission.folder / "sweep.sh";
  core::write_file_atomically(script, batch_script(tasks, submission.folder));

  std::vector<std::string> sbatch{"sbatch",
                                  "--parsable",
                                  "--job-name=" + submission.job_name,
                                  fmt::format("--array=0-{}", tasks.size() - 1),
                                  "--output=" + (submission.folder / "slurm-%A_%a.out").string()};
  // The user's options come after dtsim's, so that theirs win where both set one (sbatch takes the last).
  sbatch.insert(sbatch.end(), submission.sbatch_options.begin(), submission.sbatch_options.end());
  sbatch.push_back(script.string());
  const CommandOutput submitted = capture(sbatch);
  if (submitted.status == 127) {
    throw slurm_error("sbatch was not found on the PATH", "install Slurm's client commands (Debian: slurm-client) "
                                                          "on this machine, or run the sweep without --slurm");
  }
  if (submitted.status != 0) {
    throw slurm_error(fmt::format("sbatch refused the job array: {}", trimmed(submitted.output)),
                      "check the options given with --sbatch; nothing was submitted");
  }
  // --parsable prints "<id>" or "<id>;<cluster>".
  const std::string first_line = trimmed(submitted.output.substr(0, submitted.output.find('\n')));
  const std::string id = first_line.substr(0, first_line.find(';'));
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw slurm_error(fmt::format("sbatch printed no job id: {}", trimmed(submitted.output)), "");
  }
  if (!submission.quiet) {
    fmt::print("submitted Slurm job {}: {} array task{}, logs in {}/ (`scancel {}` stops it)\n", id, tasks.size(),
               tasks.size() == 1 ? "" : "s", submission.folder.string(), id);
    std::fflush(stdout);
  }

  std::vector<bool> seen(tasks.size(), false);
  const auto collect = [&] {
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (!seen[i] && done(i)) {
        seen[i] = true;
        finished(i);
      }
    }
  };
  const HeldSignals signals;
  double interval = 0.25;
  int failures = 0;
  for (;;) {
    if (const int signal = signals.wait(interval); signal != 0) {
      static_cast<void>(capture({"scancel", id}));
      throw Interrupted{signal};
    }
    interval = std::min(interval * 1.5, 5.0);
    collect();
    if (job_gone(id, failures)) break;
  }
  collect();
  std::vector<std::size_t> unfinished;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (!seen[i]) unfinished.push_back(i);
  }
  return unfinished;
}

}  // namespace dtsim::app
