#include "sim/app/sweep_runner.hpp"

#include "analysis/run_summary.hpp"
#include "sim/app/interrupts.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/result_folder.hpp"
#include "sim/core/rng.hpp"
#include "sim/scenario/resolved_json.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dtsim::app {
namespace {

/// What makes a sweep's results: the resolved document (every point's values follow from it) and the seed.
/// A folder built for another manifest is never mixed with this one.
nlohmann::ordered_json sweep_manifest(const RunCommandOptions& options, const scenario::ScenarioDocument& document) {
  const std::uint64_t seed = options.seed.value_or(document.points.front().seed);
  const std::string resolved = scenario::resolved_json(document.resolved).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& point : document.points) points.push_back(point.sweep_point);
  return {{"scenario", options.scenario_file.filename().string()},
          {"fingerprint", fmt::format("{:016x}", core::stable_hash(resolved + "\nseed " + std::to_string(seed)))},
          {"seed", seed},
          {"points", points}};
}

}  // namespace

void run_sweep(const RunCommandOptions& options, const scenario::ScenarioDocument& document,
               const std::filesystem::path& folder) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const nlohmann::ordered_json manifest = sweep_manifest(options, document);
  const std::string manifest_text = manifest.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  // The sweep is built beside its folder and takes its place when every point is done. An interrupted sweep
  // leaves its staging folder, named by the manifest's fingerprint, and the same sweep run again goes on
  // from the points it finished; any other sweep starts afresh.
  const std::string fingerprint = manifest["fingerprint"].get<std::string>();
  core::StagedFolder staged(folder, "sweep-" + fingerprint, /*keep_on_failure=*/true);
  const std::filesystem::path manifest_path = staged.path() / "sweep.json";
  std::string unreadable;
  const bool resuming = core::read_input_file(manifest_path, core::kScenarioFileLimit, unreadable) == manifest_text;
  if (!resuming) core::write_file_atomically(manifest_path, manifest_text);

  std::string csv =
      "point,iterations,simulated_s,bytes_sent,final_val_loss,final_val_accuracy,time_to_target_s,energy_j,"
      "energy_waiting_share\n";
  const std::size_t count = document.points.size();
  for (std::size_t i = 0; i < count; ++i) {
    const auto& point = document.points[i];
    const std::filesystem::path point_folder = staged.path() / point.sweep_point;
    if (resuming && std::filesystem::exists(point_folder / "summary.json")) {
      if (!options.quiet) fmt::print("[{}/{}] {} (done before)\n", i + 1, count, point.sweep_point);
    } else {
      std::vector<std::string> arguments{self, "run", options.scenario_file.string(), "--point", point.sweep_point,
                                         "-o", point_folder.string(), "-q"};
      if (options.seed) {
        arguments.emplace_back("--seed");
        arguments.push_back(std::to_string(*options.seed));
      }
      if (!options.quiet) fmt::print("[{}/{}] {}\n", i + 1, count, point.sweep_point);
      std::fflush(stdout);
      if (const int status = run_child_process(arguments); status != 0) {
        core::Diagnostic diagnostic;
        diagnostic.where.file = options.scenario_file.string();
        diagnostic.key = "sweep";
        diagnostic.message = fmt::format("point {} failed (exit status {}); {} is unchanged", point.sweep_point,
                                         status, folder.string());
        diagnostic.hint = "the points done so far are kept: the same sweep run again goes on from this point";
        throw core::InputError(std::move(diagnostic));
      }
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
  staged.write_file("sweep.csv", csv);
  staged.commit();
  if (!options.quiet) fmt::print("{} runs; one folder per point and sweep.csv in {}/\n", count, folder.string());
}

}  // namespace dtsim::app
