#include "sim/app/iteration_simulation.hpp"

#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace dtsim::app {

std::string in_child_process(const std::string& name, const std::function<std::string()>& work) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error("cannot open a pipe to a simulation");
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("cannot start a simulation");
  if (child == 0) {
    ::close(pipe_ends[0]);
    std::string answer;
    try {
      answer = work();
    } catch (const std::exception& error) {
      answer = std::string("!") + error.what();
    }
    for (std::size_t done = 0; done < answer.size();) {
      const ssize_t n = ::write(pipe_ends[1], answer.data() + done, answer.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(pipe_ends[1]);
  std::string answer;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_ends[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_ends[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (answer.empty()) throw std::runtime_error(fmt::format("the simulation of '{}' ended without a result", name));
  if (answer.front() == '!')
    throw std::runtime_error(fmt::format("the simulation of '{}' failed: {}", name, answer.substr(1)));
  return answer;
}

double simulate_iteration(const scenario::Scenario& s, const checks::Registries& registries,
                          const models::ModelProfile* workload, const std::vector<std::size_t>& stage_layers) {
  return std::stod(in_child_process(s.name, [&] {
    runtime::TrainingSetup setup = checks::resolve_scenario(s, registries);
    if (workload != nullptr) setup.workload = *workload;
    if (!stage_layers.empty()) setup.stage_layers = stage_layers;
    const metrics::RunRecord record = runtime::run_training(s, setup);
    return fmt::format("{:.17g}",
                       record.simulated_s / static_cast<double>(std::max<std::int64_t>(record.iterations, 1)));
  }));
}

}  // namespace dtsim::app
