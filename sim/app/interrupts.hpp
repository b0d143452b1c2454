#pragma once
// SIGINT and SIGTERM end dtsim with exit status 130 or 143 (128 + the signal), whatever it is doing: a run
// has nothing on disk to undo until its results are complete (they are staged, then renamed into place),
// and a sweep stops its running point first.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace dtsim::app {

/// Thrown by run_child_process when this process was asked to stop while its child ran.
struct Interrupted {
  int signal = 0;
  [[nodiscard]] int exit_status() const { return 128 + signal; }
};

/// From now on SIGINT and SIGTERM print "dtsim: interrupted" and exit with 128 + the signal, and a write past
/// the file-size limit fails (EFBIG) instead of killing the process.
void exit_on_interrupt();

/// Runs `arguments` (the first one a path to an executable) as a child process and returns its exit status
/// (128 + the signal when a signal ended it). A SIGINT or SIGTERM sent to this process while it waits is
/// passed on to the child, and Interrupted is thrown once the child has ended. The child is also sent SIGTERM
/// if this process dies first.
int run_child_process(const std::vector<std::string>& arguments);

/// Runs `commands` as child processes, at most `jobs` at once, in order; `finished(index, exit status)` is
/// called as each ends, and returning false starts no more (those running are waited for). Signals as
/// run_child_process: a SIGINT or SIGTERM goes to every running child, and Interrupted is thrown once they
/// have ended; an exception from `finished` is thrown once they have ended too.
void run_child_processes(const std::vector<std::vector<std::string>>& commands, int jobs,
                         const std::function<bool(std::size_t, int)>& finished);

}  // namespace dtsim::app
