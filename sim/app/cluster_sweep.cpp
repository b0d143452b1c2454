#include "sim/app/cluster_sweep.hpp"

#include "analysis/run_summary.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/scenario/scenario_format.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace dtsim::app {
namespace {

struct PointFigures {
  double makespan_s = 0.0;
  double mean_wait_s = 0.0;
  double utilization = 0.0;
  double mean_slowdown = 0.0;
  double max_slowdown = 0.0;
  std::size_t stops = 0;  ///< times jobs were stopped for jobs of higher priority
};

PointFigures figures_of(const std::filesystem::path& folder) {
  const std::optional<nlohmann::json> summary = cluster_summary(folder);
  if (!summary) {
    core::Diagnostic diagnostic;
    diagnostic.where.file = (folder / "summary.json").string();
    diagnostic.message = "not the summary of a cluster run";
    diagnostic.hint = "run the sweep again with this version of dtsim";
    throw core::InputError(std::move(diagnostic));
  }
  PointFigures out{(*summary)["makespan_s"].get<double>(), (*summary)["mean_wait_s"].get<double>(),
                   (*summary)["device_utilization"].get<double>(), 0.0, 0.0, 0};
  for (const nlohmann::json& job : (*summary)["jobs"]) {
    const double slowdown = job["slowdown"].get<double>();
    out.mean_slowdown += slowdown / static_cast<double>((*summary)["jobs"].size());
    out.max_slowdown = std::max(out.max_slowdown, slowdown);
    if (job.contains("stops")) out.stops += job["stops"].size();
  }
  return out;
}

}  // namespace

std::optional<nlohmann::json> cluster_summary(const std::filesystem::path& folder) {
  std::string reason;
  const std::optional<std::string> text = core::read_input_file(folder / "summary.json", core::kScenarioFileLimit, reason);
  if (!text) return std::nullopt;
  nlohmann::json summary = nlohmann::json::parse(*text, nullptr, false);
  if (summary.is_discarded() || !analysis::is_cluster_summary(summary)) return std::nullopt;
  return summary;
}

bool cluster_point_done(const std::filesystem::path& point_folder) { return cluster_summary(point_folder).has_value(); }

std::string cluster_sweep_csv(const scenario::ScenarioDocument& document, const std::filesystem::path& folder, bool table) {
  std::string out = table ? fmt::format("{:<32} {:>14} {:>14} {:>11} {:>13} {:>12} {:>6}\n", "point", "makespan (s)",
                                        "mean wait (s)", "devices busy", "mean slowdown", "max slowdown", "stops")
                          : std::string("point,makespan_s,mean_wait_s,device_utilization,mean_slowdown,max_slowdown,stops\n");
  for (const scenario::Scenario& point : document.points) {
    const PointFigures f = figures_of(folder / point.sweep_point);
    out += table ? fmt::format("{:<32} {:>14.6f} {:>14.6f} {:>10.1f}% {:>13.4f} {:>12.4f} {:>6}\n", point.sweep_point,
                               f.makespan_s, f.mean_wait_s, 100.0 * f.utilization, f.mean_slowdown, f.max_slowdown, f.stops)
                 : fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{}\n", core::csv_field(point.sweep_point), f.makespan_s,
                               f.mean_wait_s, f.utilization, f.mean_slowdown, f.max_slowdown, f.stops);
  }
  return out;
}

}  // namespace dtsim::app
