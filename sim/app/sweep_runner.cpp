#include "sim/app/sweep_runner.hpp"

#include "analysis/run_summary.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX leaves it undeclared in C++

namespace dtsim::app {
namespace {

int run_child(const std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));  // NOLINT
  argv.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawn(&child, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    throw std::runtime_error(fmt::format("cannot start {}", arguments.front()));
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("lost track of a sweep point's process");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

void run_sweep(const RunCommandOptions& options, const scenario::ScenarioDocument& document,
               const std::filesystem::path& folder) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string csv =
      "point,iterations,simulated_s,bytes_sent,final_val_loss,final_val_accuracy,time_to_target_s,energy_j,"
      "energy_waiting_share\n";
  const std::size_t count = document.points.size();
  for (std::size_t i = 0; i < count; ++i) {
    const auto& point = document.points[i];
    const std::filesystem::path point_folder = folder / point.sweep_point;
    std::vector<std::string> arguments{self, "run", options.scenario_file.string(), "--point", point.sweep_point,
                                       "-o", point_folder.string(), "-q"};
    if (options.seed) {
      arguments.emplace_back("--seed");
      arguments.push_back(std::to_string(*options.seed));
    }
    if (!options.quiet) fmt::print("[{}/{}] {}\n", i + 1, count, point.sweep_point);
    std::fflush(stdout);
    if (const int status = run_child(arguments); status != 0) {
      core::Diagnostic diagnostic;
      diagnostic.where.file = options.scenario_file.string();
      diagnostic.key = "sweep";
      diagnostic.message = fmt::format("point {} failed (exit status {}); the points before it are in {}",
                                       point.sweep_point, status, folder.string());
      throw core::InputError(std::move(diagnostic));
    }
    const analysis::RunSummary summary = analysis::read_run_summary(point_folder);
    const auto cell = [](const std::optional<double>& value) {
      return value ? fmt::format("{:.9g}", *value) : std::string();
    };
    csv += fmt::format("\"{}\",{},{:.9g},{:.0f},{},{},{},{},{}\n", point.sweep_point, summary.iterations,
                       summary.simulated_s, summary.bytes_sent, cell(summary.final_val_loss),
                       cell(summary.final_val_accuracy), cell(summary.time_to_target_s), cell(summary.energy_j),
                       cell(summary.energy_waiting_share));
  }
  core::write_file_atomically(folder / "sweep.csv", csv);
  if (!options.quiet) fmt::print("{} runs; one folder per point and sweep.csv in {}/\n", count, folder.string());
}

}  // namespace dtsim::app
