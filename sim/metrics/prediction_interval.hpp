#pragma once
// How far from a real run a timing-only prediction may be: the errors dtsim made on the validation tables'
// test rows (docs/validation.md) of the same kind of run (a dense model in 16 bits, a dense model in an FP8
// recipe, a mixture of experts), device generation and model family or token dispatcher, turned into an
// interval around the predicted iteration time. Test rows only: no constant was fitted to them.

#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dtsim::metrics {

/// One test row: the validation scenario, its device, its model family (`moe` for a mixture of experts) and
/// dtsim's error on it, the measured iteration time over the predicted one, minus 1 (positive where the real run
/// was slower); the numerics its products ran in (`16-bit`, or `fp8` for every FP8 recipe) and a mixture's token
/// dispatcher (`all_to_all`, `deepep`; empty for a dense model).
struct ValidationRow {
  std::string_view scenario;
  std::string_view device;
  std::string_view family;
  double error = 0.0;
  std::string_view numerics = "16-bit";
  std::string_view dispatcher;
};

/// Which test rows judge a run: its device generation, its model family (`moe` for a mixture), its numerics and,
/// for a mixture, its token dispatcher.
struct IntervalKey {
  std::string_view generation;
  std::string_view family;
  std::string_view numerics = "16-bit";
  std::string_view dispatcher;
};

/// The test rows compiled in (sim/metrics/validation_test_rows.inc).
std::span<const ValidationRow> validation_test_rows();

/// `cnn`, `bert` or `gpt` (dense decoders, Llama's among them) for a layer-table model kind; empty otherwise.
std::string_view model_family(std::string_view model_kind);
/// The GPU generation a device belongs to (`volta`, `ampere`, `hopper`, `blackwell` for the B200 and GB200), or
/// the device's own name.
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

/// The interval from the test rows of the key's kind of run (dense in its numerics, or a mixture). Dense: those of
/// its generation and family; with fewer than 3 of them, the family's rows on every generation; with fewer than 3
/// of those, every row of its numerics. A mixture: those of its dispatcher; with fewer than 3, every mixture's.
PredictionInterval interval_from(std::span<const ValidationRow> rows, const IntervalKey& key, double iteration_s);

/// For a timing-only run whose workers share one device generation that test rows of its kind ran on: the interval
/// of its iteration time.
std::optional<PredictionInterval> prediction_interval(const scenario::Scenario& scenario, const RunRecord& record);

/// Why a timing-only run gets no interval, the test rows not judging it ("no test row splits its sequences over a
/// context group");
/// empty where it gets one, and for runs that train for real.
std::string missing_interval_reason(const scenario::Scenario& scenario, const RunRecord& record);

/// One line for the summary printed after a run ("a real run's iteration 0.77-1.09 s (predicted 1.34 s), by ...").
std::string interval_line(const PredictionInterval& interval);

}  // namespace dtsim::metrics
