#pragma once
// `dtsim calibrate`: fits devices' sustained efficiencies and links' figures to iteration times or collective
// times (nccl-tests output, bus-bandwidth curves) measured on the user's own hardware, and writes them as a
// catalog file that scenarios include.

#include "sim/checks/registries.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::app {

struct CalibrateOptions {
  /// A CSV with a header and the columns `scenario` (a YAML file, relative to the CSV's folder) and
  /// `iteration_s` (the measured seconds of one training iteration), and optionally `bound_percent` (the
  /// largest error of the predicted throughput the row accepts); or a CSV of collectives (`scenario`,
  /// `operation`, `size_B`, and `busbw_GBps` or `time_us`); or the output of an nccl-tests program; or a
  /// PyTorch profiler trace of a few steps on one GPU (trace_calibration.hpp).
  std::filesystem::path measurements;
  /// The cluster nccl-tests output was measured on, or the scenario of a profiler trace's model (required for
  /// those inputs, unused otherwise).
  std::optional<std::filesystem::path> scenario;
  /// What to fit: `DEVICE.CLASS` (such as a100.convolution) or `DEVICE` (one efficiency for every class);
  /// `NODE_TYPE.intra_link.bandwidth`, `NODE_TYPE.intra_link.latency`, `link.bandwidth`, `link.latency`.
  /// None: the rows are only compared with their predictions (a validation table).
  std::vector<std::string> fit;
  /// The catalog file to write (YAML, under `cluster.devices`); none: only the report. Never an input: not
  /// `measurements`, not a scenario they name (std::filesystem::equivalent where both exist).
  std::optional<std::filesystem::path> output;
  /// A profiler trace's step annotations: the host annotations whose names begin with this.
  std::string step_marker = "ProfilerStep#";
};

struct Calibration {
  std::string catalog;  ///< the YAML catalog text; empty when nothing was fitted
  std::string report;   ///< the fitted values and the residuals, as a table
  int over_bound = 0;   ///< rows whose error exceeds their bound_percent
};

/// Fits the efficiencies that make the scenarios' simulated iteration times closest to the measured ones
/// (least squares on the logarithm of their ratio). Throws core::InputError for bad files or keys, and for an
/// `output` that is one of the inputs, before any simulation.
Calibration calibrate(const CalibrateOptions& options, const checks::Registries& registries);

/// `calibrate`, then writes the catalog (atomically) when asked; returns the report. `over_bound`, when
/// given, receives the rows over their bound.
std::string calibrate_command(const CalibrateOptions& options, const checks::Registries& registries,
                              int* over_bound = nullptr);

}  // namespace dtsim::app
