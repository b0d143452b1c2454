#include "sim/app/interrupts.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <exception>
#include <map>
#include <stdexcept>
#include <utility>

namespace dtsim::app {
namespace {

void stop_now(int signal) {
  // Only async-signal-safe calls here: write and _exit.
  constexpr char kMessage[] = "\ndtsim: interrupted\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(128 + signal);
}

int exit_status_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

}  // namespace

void exit_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = stop_now;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  // A file-size limit (ulimit -f) kills with SIGXFSZ by default; ignored, the write fails with EFBIG and
  // the result folder's writer reports it as the write error it is (exit 2, nothing half-written).
  ::signal(SIGXFSZ, SIG_IGN);
}

namespace {

/// Starts `arguments` as a child that dies with this process; signals stay blocked in this process.
pid_t start_child(const std::vector<std::string>& arguments, const sigset_t& previous, pid_t parent) {
  std::vector<char*> argv;
  for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));  // NOLINT
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(fmt::format("cannot start {}", arguments.front()));
  if (child == 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return child;
}

}  // namespace

void run_child_processes(const std::vector<std::vector<std::string>>& commands, int jobs,
                         const std::function<bool(std::size_t, int)>& finished) {
  // The signals wait in a queue while children run, and are taken one at a time below.
  sigset_t stopping;
  sigemptyset(&stopping);
  sigaddset(&stopping, SIGINT);
  sigaddset(&stopping, SIGTERM);
  sigaddset(&stopping, SIGCHLD);
  sigset_t previous;
  ::sigprocmask(SIG_BLOCK, &stopping, &previous);
  const pid_t parent = ::getpid();
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  bool go_on = true;
  int interrupted_by = 0;
  std::exception_ptr failure;
  const auto wait_all = [&running] {
    for (const auto& [child, index] : running) {
      int status = 0;
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
    }
    running.clear();
  };
  try {
    for (;;) {
      while (go_on && next < commands.size() && std::cmp_less(running.size(), std::max(jobs, 1))) {
        running.emplace(start_child(commands[next], previous, parent), next);
        ++next;
      }
      if (running.empty()) break;
      const timespec second{1, 0};
      const int signal = ::sigtimedwait(&stopping, nullptr, &second);
      if (signal == SIGINT || signal == SIGTERM) {
        interrupted_by = signal;
        for (const auto& [child, index] : running) ::kill(child, signal);
        wait_all();
        break;
      }
      // A SIGCHLD, or a second without news: which children have ended?
      for (;;) {
        int status = 0;
        const pid_t ended = ::waitpid(-1, &status, WNOHANG);
        if (ended == 0 || (ended < 0 && errno == ECHILD)) break;
        if (ended < 0) {
          if (errno == EINTR) continue;
          throw std::runtime_error("lost track of a child process");
        }
        const auto found = running.find(ended);
        if (found == running.end()) continue;
        const std::size_t index = found->second;
        running.erase(found);
        if (!finished(index, exit_status_of(status))) go_on = false;
      }
    }
  } catch (...) {
    // No child outlives a failure here: those running end first.
    failure = std::current_exception();
    wait_all();
  }
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (failure) std::rethrow_exception(failure);
  if (interrupted_by != 0) throw Interrupted{interrupted_by};
}

int run_child_process(const std::vector<std::string>& arguments) {
  int status = 0;
  run_child_processes({arguments}, 1, [&status](std::size_t /*index*/, int ended) {
    status = ended;
    return true;
  });
  return status;
}

}  // namespace dtsim::app
