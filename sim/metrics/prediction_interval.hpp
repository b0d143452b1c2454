#pragma once
// How far from a real run a timing-only prediction may be: the errors dtsim made on the validation table's
// test rows (docs/validation.md) of the same device generation and model family, turned into an interval
// around the predicted iteration time. Test rows only: no constant was fitted to them.

#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dtsim::metrics {

/// One test row: the validation scenario, its device, its model family and dtsim's error on it, the measured
/// iteration time over the predicted one, minus 1 (positive where the real run was slower).
struct ValidationRow {
  std::string_view scenario;
  std::string_view device;
  std::string_view family;
  double error = 0.0;
};

/// The test rows compiled in (sim/metrics/validation_test_rows.inc).
std::span<const ValidationRow> validation_test_rows();

/// `cnn`, `bert` or `gpt` (dense decoders, Llama's among them) for a layer-table model kind; empty otherwise.
std::string_view model_family(std::string_view model_kind);
/// The GPU generation a device belongs to (`volta`, `ampere`, `hopper`), or the device's own name.
std::string_view device_generation(std::string_view device);

/// Where the predicted iteration time would put a real run: between the 10th and 90th percentiles of the
/// errors of the rows it is drawn from, `rows` of them, described by `basis`.
struct PredictionInterval {
  double iteration_s = 0.0;
  double low_s = 0.0;
  double high_s = 0.0;
  int rows = 0;
  std::string basis;
};

/// The interval from the test rows of `generation` and `family`; with fewer than 3 of them, from the family's
/// rows on every generation; with fewer than 3 of those, from every test row.
PredictionInterval interval_from(std::span<const ValidationRow> rows, std::string_view generation,
                                 std::string_view family, double iteration_s);

/// For a timing-only run whose workers share one device generation: the interval of its iteration time.
std::optional<PredictionInterval> prediction_interval(const scenario::Scenario& scenario, const RunRecord& record);

/// Why a timing-only run gets no interval, the test rows not judging it ("no test row is a mixture of experts");
/// empty where it gets one, and for runs that train for real.
std::string missing_interval_reason(const scenario::Scenario& scenario, const RunRecord& record);

/// One line for the summary printed after a run ("a real run's iteration 0.77-1.09 s (predicted 1.34 s), by ...").
std::string interval_line(const PredictionInterval& interval);

}  // namespace dtsim::metrics
