#include "sim/metrics/prediction_interval.hpp"

#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/named_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace dtsim::metrics {

namespace {

constexpr ValidationRow kTestRows[] = {
#include "sim/metrics/validation_test_rows.inc"
};

/// Fewer rows than this say too little about a spread to draw an interval from.
constexpr std::size_t kFewestRows = 3;

/// The family the rows give a mixture of experts, whatever its layers.
constexpr std::string_view kMixture = "moe";

/// The q-quantile of sorted `values`, between neighbouring order statistics (numpy's default, type 7).
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

/// Whether `row` is of the kind of run `key` is: a mixture of experts (its dispatcher apart), or a dense model in
/// the same numerics.
bool same_kind(const ValidationRow& row, const IntervalKey& key) {
  if (key.family == kMixture) return row.family == kMixture;
  return row.family != kMixture && row.numerics == key.numerics;
}

/// The sorted errors of the rows of `key`'s kind, of its generation, family and dispatcher where given.
std::vector<double> errors_of(std::span<const ValidationRow> rows, const IntervalKey& key) {
  std::vector<double> out;
  for (const ValidationRow& row : rows) {
    if (!same_kind(row, key)) continue;
    if (!key.generation.empty() && device_generation(row.device) != key.generation) continue;
    if (!key.family.empty() && row.family != key.family) continue;
    if (!key.dispatcher.empty() && row.dispatcher != key.dispatcher) continue;
    out.push_back(row.error);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// `numerics` in words: "16 bits", "an FP8 recipe", or a precision's name.
std::string numerics_words(std::string_view numerics) {
  if (numerics == "16-bit") return "16 bits";
  return numerics == "fp8" ? std::string("an FP8 recipe") : std::string(numerics);
}

/// `numerics` as a basis names it: nothing for 16 bits (the table dtsim began with), " in FP8 recipes" otherwise.
std::string in_numerics(std::string_view numerics) {
  return numerics == "16-bit" ? std::string() : fmt::format(" in {} recipes", numerics == "fp8" ? "FP8" : numerics);
}

/// The narrowest set of rows with enough of them, and its description: a mixture's dispatcher, then every mixture;
/// a dense run's generation and family, then its family, then every row of its numerics.
std::pair<std::vector<double>, std::string> rows_for(std::span<const ValidationRow> rows, const IntervalKey& key) {
  if (key.family == kMixture) {
    std::vector<double> errors = errors_of(rows, {{}, kMixture, key.numerics, key.dispatcher});
    if (errors.size() >= kFewestRows) {
      return {std::move(errors), fmt::format("mixtures of experts on the {} dispatcher", key.dispatcher)};
    }
    return {errors_of(rows, {{}, kMixture, key.numerics, {}}), "mixtures of experts on every dispatcher"};
  }
  const std::string numerics = in_numerics(key.numerics);
  std::vector<double> errors = errors_of(rows, key);
  if (errors.size() >= kFewestRows) {
    return {std::move(errors), fmt::format("{} models{} on {} GPUs", key.family, numerics, key.generation)};
  }
  errors = errors_of(rows, {{}, key.family, key.numerics, {}});
  if (errors.size() >= kFewestRows) {
    return {std::move(errors), fmt::format("{} models{} on every GPU generation", key.family, numerics)};
  }
  return {errors_of(rows, {{}, {}, key.numerics, {}}), fmt::format("every model{} and GPU generation", numerics)};
}

/// The numerics a precision's products run in, as the rows name them: `16-bit`, `fp8` for every FP8 recipe, or
/// the precision's own name (fp32, nvfp4: no test row ran them).
std::string_view numerics_of(scenario::ComputePrecision precision) {
  using P = scenario::ComputePrecision;
  if (precision == P::fp32 || precision == P::nvfp4) return scenario::to_string(precision);
  return scenario::quantized(precision) ? "fp8" : "16-bit";
}

/// Whether the test rows speak for `device`: a built-in GPU with its catalog figures. Declared efficiencies or
/// peaks are the user's own fit, which the rows did not judge.
bool judged_by_test_rows(const scenario::DeviceProfile& device) {
  const std::optional<scenario::DeviceProfile> builtin = scenario::find_builtin_device(device.name);
  if (!builtin) return false;
  return device.efficiency == builtin->efficiency && device.class_efficiency == builtin->class_efficiency &&
         device.peak_flops == builtin->peak_flops && device.half_flops == builtin->half_flops &&
         device.fp8_flops == builtin->fp8_flops && device.memory_bandwidth == builtin->memory_bandwidth;
}

/// Why the rows of `key`'s kind do not judge its generation and numerics (none of them ran there); empty where
/// they do. A dense kind's rows are already of its numerics; a mixture's are of every numerics.
std::string unjudged_kind(std::span<const ValidationRow> rows, const IntervalKey& key) {
  const std::string what = key.family == kMixture ? "a mixture of experts" : "a dense model";
  bool generation = false;
  bool numerics = false;
  for (const ValidationRow& row : rows) {
    if (!same_kind(row, key)) continue;
    generation = generation || device_generation(row.device) == key.generation;
    numerics = numerics || row.numerics == key.numerics;
  }
  if (!numerics) return fmt::format("no test row of {} ran in {}", what, numerics_words(key.numerics));
  if (!generation) {
    return fmt::format("no test row of {}{} ran on {} GPUs", what,
                       key.family == kMixture ? std::string() : fmt::format(" in {}", numerics_words(key.numerics)),
                       key.generation);
  }
  return {};
}

/// The key of `scenario`'s run: its first worker's generation and numerics, its family or `moe`, its dispatcher.
IntervalKey key_of(const scenario::Scenario& scenario, const RunRecord& record) {
  const scenario::DeviceProfile& device = scenario.cluster.device_of(0);
  IntervalKey key{
      device_generation(device.name), model_family(scenario.model.kind.value), numerics_of(device.precision), {}};
  if (record.fewer_active_parameters()) {
    key.family = kMixture;
    key.dispatcher = scenario::to_string(scenario.training.token_dispatcher);
  }
  return key;
}

}  // namespace

std::span<const ValidationRow> validation_test_rows() { return kTestRows; }

std::string_view model_family(std::string_view model_kind) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kFamilies{
      {{"profile:resnet", "cnn"}, {"profile:bert", "bert"}, {"profile:gpt", "gpt"}, {"profile:llama", "gpt"}}};
  for (const auto& [prefix, family] : kFamilies) {
    if (model_kind.starts_with(prefix)) return family;
  }
  return {};
}

std::string_view device_generation(std::string_view device) {
  if (device == "v100") return "volta";
  if (device == "a100") return "ampere";
  if (device == "h100" || device == "h200" || device == "h800") return "hopper";
  // The B300 and GB300 stay apart: no test row ran them, and their catalog fractions are the default.
  if (device == "b200" || device == "gb200") return "blackwell";
  return device;
}

PredictionInterval interval_from(std::span<const ValidationRow> rows, const IntervalKey& key, double iteration_s) {
  auto [errors, basis] = rows_for(rows, key);
  PredictionInterval out;
  out.iteration_s = iteration_s;
  out.rows = static_cast<int>(errors.size());
  out.basis = std::move(basis);
  if (errors.empty()) return out;
  out.low_s = iteration_s * (1.0 + quantile(errors, 0.1));
  out.high_s = iteration_s * (1.0 + quantile(errors, 0.9));
  return out;
}

std::string missing_interval_reason(const scenario::Scenario& scenario, const RunRecord& record) {
  if (!scenario.model.timing_only || record.iterations <= 0 || record.simulated_s <= 0.0) return {};
  // The test rows ran with links shared as messages share them; closed_form's network shares none.
  const scenario::NetworkModelTraits& network = scenario::traits_of(scenario.topology.network_model);
  if (!network.shares_links) {
    return fmt::format("the test rows ran with links shared by their messages, and the {} network shares none",
                       network.network_name);
  }
  const IntervalKey key = key_of(scenario, record);
  if (key.family.empty()) return fmt::format("no test row is of the family of '{}'", scenario.model.kind.value);
  if (scenario.training.parallelism.context > 1) return "no test row splits its sequences over a context group";
  // Workers share a handful of profiles: each is looked up in the catalog once, not once a worker.
  const scenario::DeviceProfile* judged = nullptr;
  for (int rank = 0; rank < scenario.cluster.workers; ++rank) {
    const scenario::DeviceProfile& device = scenario.cluster.device_of(rank);
    if (judged != nullptr && device == *judged) continue;
    if (device_generation(device.name) != key.generation || numerics_of(device.precision) != key.numerics) {
      return fmt::format(
          "each test row ran on one GPU generation in one precision, and worker {}'s '{}' in {} is not "
          "worker 0's {} in {}",
          rank, device.name, scenario::to_string(device.precision), key.generation, numerics_words(key.numerics));
    }
    if (!judged_by_test_rows(device)) {
      return fmt::format("the test rows ran built-in GPUs at their catalog figures, and worker {}'s '{}' is not one",
                         rank, device.name);
    }
    judged = &device;
  }
  return unjudged_kind(validation_test_rows(), key);
}

std::optional<PredictionInterval> prediction_interval(const scenario::Scenario& scenario, const RunRecord& record) {
  if (!scenario.model.timing_only || record.iterations <= 0 || record.simulated_s <= 0.0) return std::nullopt;
  if (!missing_interval_reason(scenario, record).empty()) return std::nullopt;
  return interval_from(validation_test_rows(), key_of(scenario, record),
                       record.simulated_s / static_cast<double>(record.iterations));
}

std::string interval_line(const PredictionInterval& interval) {
  return fmt::format(
      "a real run's iteration {:.4g}-{:.4g} s (predicted {:.4g} s), by the 10th-90th percentile of "
      "dtsim's errors on {} test rows of {} (docs/validation.md)",
      interval.low_s, interval.high_s, interval.iteration_s, interval.rows, interval.basis);
}

}  // namespace dtsim::metrics
