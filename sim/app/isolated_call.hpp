#pragma once
// Runs a function in a child process with a wall-clock limit, so that code dtsim does not trust (a student's
// plug-in) can crash, hang or exit without taking the caller with it. The caller must not have started
// threads or a SimGrid engine: the child is a fork().

#include <chrono>
#include <functional>
#include <string>

namespace dtsim::app {

struct IsolatedOutcome {
  enum class Status {
    finished,   ///< the function returned; `text` is what it returned
    threw,      ///< it threw; `text` is the exception's message
    crashed,    ///< killed by a signal, or exited without returning; `text` says which
    timed_out,  ///< still running at the limit, and killed
    stopped,    ///< `should_stop` said so, and it was killed
  };
  Status status = Status::finished;
  std::string text;
};

/// Calls `work` in a child process and returns what it returned, or how it ended. The child's standard output
/// and error go to /dev/null. While it runs, `should_stop` (when given) is asked about ten times a second
/// whether to kill it: a host such as Python checks there for a keyboard interrupt.
IsolatedOutcome call_isolated(const std::function<std::string()>& work, std::chrono::milliseconds limit,
                              const std::function<bool()>& should_stop = {});

/// One line of text, without its newline.
using LineSink = std::function<void(const std::string&)>;

/// call_isolated for work that reports as it goes (a run's progress): each line the child gives `send` reaches
/// `on_line` in the caller while the child runs, in order (a newline within a line is sent as a space).
IsolatedOutcome call_isolated_reporting(const std::function<std::string(const LineSink& send)>& work,
                                        std::chrono::milliseconds limit, const std::function<bool()>& should_stop,
                                        const LineSink& on_line);

}  // namespace dtsim::app
