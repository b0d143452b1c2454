#include "sim/app/isolated_call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <stdexcept>

namespace dtsim::app {
namespace {

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

IsolatedOutcome call_isolated(const std::function<std::string()>& work, std::chrono::milliseconds limit,
                              const std::function<bool()>& should_stop) {
  std::array<int, 2> pipe_ends{};
  if (::pipe(pipe_ends.data()) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (child == 0) {
    ::close(pipe_ends[0]);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
    }
    // The first byte says how the function ended: R returned, T threw.
    try {
      write_all(pipe_ends[1], "R" + work());
    } catch (const std::exception& error) {
      write_all(pipe_ends[1], std::string("T") + error.what());
    } catch (...) {
      write_all(pipe_ends[1], "Tan exception that is not a std::exception");
    }
    ::_exit(0);
  }
  ::close(pipe_ends[1]);
  std::string received;
  bool timed_out = false;
  bool stopped = false;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  constexpr std::chrono::milliseconds kStopQuestionEvery{100};
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    if (should_stop && should_stop()) {
      stopped = true;
      break;
    }
    const auto wait = should_stop ? std::min(left, kStopQuestionEvery) : left;
    pollfd watched{pipe_ends[0], POLLIN, 0};
    const int ready = ::poll(&watched, 1, static_cast<int>(wait.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline is checked at the top
    std::array<char, 4096> chunk{};
    const ssize_t n = ::read(pipe_ends[0], chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: it has ended
    received.append(chunk.data(), static_cast<std::size_t>(n));
  }
  ::close(pipe_ends[0]);
  if (timed_out || stopped) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  IsolatedOutcome outcome;
  if (stopped) {
    outcome.status = IsolatedOutcome::Status::stopped;
    outcome.text = "stopped";
  } else if (timed_out) {
    outcome.status = IsolatedOutcome::Status::timed_out;
    outcome.text = fmt::format("still running after {:g} s (a hang?), stopped", static_cast<double>(limit.count()) / 1000.0);
  } else if (WIFSIGNALED(status)) {
    outcome.status = IsolatedOutcome::Status::crashed;
    outcome.text = fmt::format("crashed: signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)));
  } else if (received.empty()) {
    outcome.status = IsolatedOutcome::Status::crashed;
    outcome.text = fmt::format("ended the process (exit status {}) without returning",
                               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else {
    outcome.status = received[0] == 'R' ? IsolatedOutcome::Status::finished : IsolatedOutcome::Status::threw;
    outcome.text = received.substr(1);
  }
  return outcome;
}

}  // namespace dtsim::app
