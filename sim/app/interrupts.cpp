#include "sim/app/interrupts.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <stdexcept>

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
}

int run_child_process(const std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));  // NOLINT
  argv.push_back(nullptr);

  // The signals wait in a queue while the child runs, and are taken one at a time below.
  sigset_t stopping;
  sigemptyset(&stopping);
  sigaddset(&stopping, SIGINT);
  sigaddset(&stopping, SIGTERM);
  sigaddset(&stopping, SIGCHLD);
  sigset_t previous;
  ::sigprocmask(SIG_BLOCK, &stopping, &previous);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    throw std::runtime_error(fmt::format("cannot start {}", arguments.front()));
  }
  if (child == 0) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }

  int status = 0;
  int interrupted_by = 0;
  for (;;) {
    const timespec second{1, 0};
    const int signal = ::sigtimedwait(&stopping, nullptr, &second);
    if (signal == SIGINT || signal == SIGTERM) {
      interrupted_by = signal;
      ::kill(child, signal);
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    // A SIGCHLD, or a second without news: has the child ended?
    const pid_t ended = ::waitpid(child, &status, WNOHANG);
    if (ended == child) break;
    if (ended < 0 && errno != EINTR) {
      ::sigprocmask(SIG_SETMASK, &previous, nullptr);
      throw std::runtime_error("lost track of a child process");
    }
  }
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (interrupted_by != 0) throw Interrupted{interrupted_by};
  return exit_status_of(status);
}

}  // namespace dtsim::app
