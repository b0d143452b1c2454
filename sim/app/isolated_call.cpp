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

/// The child's side: stdout and stderr to /dev/null, the lines `work` sends framed one a line, then its
/// result, its first byte saying how it ended (R returned, T threw).
[[noreturn]] void run_child(const std::function<std::string(const LineSink& send)>& work, const std::array<int, 2>& result_pipe,
                           const std::array<int, 2>& line_pipe) {
  ::close(result_pipe[0]);
  ::close(line_pipe[0]);
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  const LineSink send = [fd = line_pipe[1]](const std::string& line) {
    std::string framed = line;
    std::replace(framed.begin(), framed.end(), '\n', ' ');
    write_all(fd, framed + '\n');
  };
  try {
    write_all(result_pipe[1], "R" + work(send));
  } catch (const std::exception& error) {
    write_all(result_pipe[1], std::string("T") + error.what());
  } catch (...) {
    write_all(result_pipe[1], "Tan exception that is not a std::exception");
  }
  ::_exit(0);
}

/// How the child ended, and what it said.
IsolatedOutcome outcome_of(bool stopped, bool timed_out, int status, const std::string& received,
                           std::chrono::milliseconds limit) {
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

}  // namespace

IsolatedOutcome call_isolated(const std::function<std::string()>& work, std::chrono::milliseconds limit,
                              const std::function<bool()>& should_stop) {
  return call_isolated_reporting([&](const LineSink&) { return work(); }, limit, should_stop, {});
}

IsolatedOutcome call_isolated_reporting(const std::function<std::string(const LineSink& send)>& work,
                                        std::chrono::milliseconds limit, const std::function<bool()>& should_stop,
                                        const LineSink& on_line) {
  // Two pipes: the result, read whole once the child closes it, and the lines sent on the way. Close-on-exec:
  // the processes the child starts (a sweep's points) must not hold them open after it has ended.
  std::array<int, 2> result_pipe{};
  std::array<int, 2> line_pipe{};
  if (::pipe2(result_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(line_pipe.data(), O_CLOEXEC) != 0) {
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (child == 0) run_child(work, result_pipe, line_pipe);
  ::close(result_pipe[1]);
  ::close(line_pipe[1]);
  std::string received;
  std::string lines;
  bool timed_out = false;
  bool stopped = false;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  constexpr std::chrono::milliseconds kStopQuestionEvery{100};
  std::array<pollfd, 2> watched{pollfd{result_pipe[0], POLLIN, 0}, pollfd{line_pipe[0], POLLIN, 0}};
  const auto read_into = [](int fd, std::string& text) {
    std::array<char, 4096> chunk{};
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n > 0) text.append(chunk.data(), static_cast<std::size_t>(n));
    return n;
  };
  const auto pass_on_lines = [&] {
    std::size_t end = 0;
    while ((end = lines.find('\n')) != std::string::npos) {
      const std::string line = lines.substr(0, end);
      lines.erase(0, end + 1);
      if (on_line) on_line(line);
    }
  };
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
    const int ready = ::poll(watched.data(), watched.size(), static_cast<int>(wait.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline is checked at the top
    if (watched[1].revents != 0) {
      const ssize_t n = read_into(line_pipe[0], lines);
      if (n == 0 || (n < 0 && errno != EINTR)) watched[1].fd = -1;  // poll skips it from now on
      pass_on_lines();
    }
    if (watched[0].revents != 0) {
      const ssize_t n = read_into(result_pipe[0], received);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the child closed its end: it has ended
    }
  }
  // Lines sent just before the result.
  if (!timed_out && !stopped && watched[1].fd >= 0) {
    while (read_into(line_pipe[0], lines) > 0) {
    }
    pass_on_lines();
  }
  ::close(result_pipe[0]);
  ::close(line_pipe[0]);
  if (timed_out || stopped) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return outcome_of(stopped, timed_out, status, received, limit);
}

}  // namespace dtsim::app
