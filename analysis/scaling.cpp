#include "analysis/scaling.hpp"

#include "sim/core/csv.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::analysis {

std::string_view mode_name(ScalingMode mode) { return mode == ScalingMode::Weak ? "weak" : "strong"; }

ScalingStudy scaling_study(ScalingMode mode, std::vector<ScalingPoint> points) {
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.workers < b.workers; });
  ScalingStudy study;
  study.mode = mode;
  if (points.empty()) return study;
  const ScalingPoint& base = points.front();
  // Amdahl: 1/S - 1/n = f (1 - 1/n); Gustafson: n - S = s (n - 1). Both y = fraction x a, fitted through 0.
  double ay = 0.0;
  double aa = 0.0;
  for (const ScalingPoint& point : points) {
    ScalingRow row;
    row.point = point;
    const double n = point.workers;
    row.speedup = base.samples_per_s > 0.0 ? base.workers * point.samples_per_s / base.samples_per_s : 0.0;
    row.efficiency = row.speedup / n;
    if (point.workers > base.workers && row.speedup > 0.0) {
      row.karp_flatt = (1.0 / row.speedup - 1.0 / n) / (1.0 - 1.0 / n);
    }
    if (point.workers > base.workers && row.speedup > 0.0) {
      const double a = mode == ScalingMode::Strong ? 1.0 - 1.0 / n : n - 1.0;
      const double y = mode == ScalingMode::Strong ? 1.0 / row.speedup - 1.0 / n : n - row.speedup;
      ay += a * y;
      aa += a * a;
    }
    study.rows.push_back(row);
  }
  if (aa > 0.0) study.serial_fraction = ay / aa;
  return study;
}

std::string scaling_csv(const std::vector<ScalingStudy>& studies) {
  std::string out =
      "mode,workers,iteration_s,samples_per_s,speedup,efficiency,karp_flatt,compute_share,communication_share,"
      "waiting_share,time_to_target_s,epochs_to_target,fitted_serial_fraction,layout\n";
  const auto cell = [](const std::optional<double>& value) { return value ? fmt::format("{:.9g}", *value) : std::string(); };
  for (const ScalingStudy& study : studies) {
    for (const ScalingRow& row : study.rows) {
      const ScalingPoint& p = row.point;
      out += fmt::format("{},{},{:.9g},{:.9g},{:.9g},{:.9g},{},{:.9g},{:.9g},{:.9g},{},{},{},{}\n", mode_name(study.mode),
                         p.workers, p.iteration_s, p.samples_per_s, row.speedup, row.efficiency, cell(row.karp_flatt),
                         p.compute_share, p.communication_share, p.waiting_share, cell(p.time_to_target_s),
                         cell(p.epochs_to_target), cell(study.serial_fraction), core::csv_field(p.layout));
    }
  }
  return out;
}

}  // namespace dtsim::analysis
