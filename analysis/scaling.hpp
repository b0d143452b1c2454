#pragma once
// Weak and strong scaling studies from finished runs: speedup and parallel efficiency against the smallest
// run, each point's Karp-Flatt metric, and the serial fraction fitted over the points (Amdahl's law for
// strong scaling, Gustafson's for weak).

#include <optional>
#include <string>
#include <vector>

namespace dtsim::analysis {

enum class ScalingMode { Weak, Strong };

/// What one run of a study measured.
struct ScalingPoint {
  int workers = 0;
  double iteration_s = 0.0;     ///< simulated seconds per iteration
  double samples_per_s = 0.0;   ///< all workers' samples per simulated second
  double compute_share = 0.0;   ///< of the workers' time (workers x simulated seconds)
  double communication_share = 0.0;
  double waiting_share = 0.0;
  std::optional<double> time_to_target_s;  ///< runs that train for real and reached outputs.target_loss
  std::optional<double> epochs_to_target;
  std::string layout;  ///< the run's split ("t4 p4 d64", run_summary.hpp's describe_layout); "" for data parallelism alone
};

struct ScalingRow {
  ScalingPoint point;
  /// Throughput over the smallest run's, times its workers: strong, n0 T(n0) / T(n); weak (scaled speedup),
  /// n T(n0) / T(n). Ideal: the workers.
  double speedup = 0.0;
  double efficiency = 0.0;  ///< speedup / workers
  /// The experimentally determined serial fraction (1/S - 1/n) / (1 - 1/n); none for the smallest run.
  std::optional<double> karp_flatt;
};

struct ScalingStudy {
  ScalingMode mode = ScalingMode::Strong;
  std::vector<ScalingRow> rows;  ///< by workers, ascending
  /// Least-squares fit over the points with more workers than the smallest: Amdahl's f in
  /// S(n) = 1 / (f + (1 - f) / n) (strong), Gustafson's s in S(n) = n - s (n - 1) (weak); none with fewer
  /// than two points.
  std::optional<double> serial_fraction;
};

/// The study of `points` (any order; equal worker counts are an error of the caller).
ScalingStudy scaling_study(ScalingMode mode, std::vector<ScalingPoint> points);

std::string_view mode_name(ScalingMode mode);

/// scaling.csv: one row per point of each study.
std::string scaling_csv(const std::vector<ScalingStudy>& studies);

}  // namespace dtsim::analysis
