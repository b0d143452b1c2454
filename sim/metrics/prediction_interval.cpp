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

/// The q-quantile of sorted `values`, between neighbouring order statistics (numpy's default, type 7).
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

std::vector<double> errors_of(std::span<const ValidationRow> rows, std::string_view generation, std::string_view family) {
  std::vector<double> out;
  for (const ValidationRow& row : rows) {
    if (!family.empty() && row.family != family) continue;
    if (!generation.empty() && device_generation(row.device) != generation) continue;
    out.push_back(row.error);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Whether the test rows speak for `device`: a built-in GPU with its catalog figures, in 16 bits as every
/// dense test row ran (no FP8 row judges the FP8 recipes yet). Declared efficiencies or peaks are the user's own
/// fit, which the rows did not judge.
bool judged_by_test_rows(const scenario::DeviceProfile& device) {
  const std::optional<scenario::DeviceProfile> builtin = scenario::find_builtin_device(device.name);
  if (!builtin || !scenario::reduced(device.precision) || scenario::quantized(device.precision)) return false;
  // A GPU of a generation no test row ran on (Blackwell, AMD Instinct, the H20 at the default efficiency).
  if (device_generation(device.name) == device.name) return false;
  return device.efficiency == builtin->efficiency && device.class_efficiency == builtin->class_efficiency &&
         device.peak_flops == builtin->peak_flops && device.half_flops == builtin->half_flops &&
         device.memory_bandwidth == builtin->memory_bandwidth;
}

}  // namespace

std::span<const ValidationRow> validation_test_rows() { return kTestRows; }

std::string_view model_family(std::string_view model_kind) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kFamilies{{
      {"profile:resnet", "cnn"}, {"profile:bert", "bert"}, {"profile:gpt", "gpt"}, {"profile:llama", "gpt"}}};
  for (const auto& [prefix, family] : kFamilies) {
    if (model_kind.starts_with(prefix)) return family;
  }
  return {};
}

std::string_view device_generation(std::string_view device) {
  if (device == "v100") return "volta";
  if (device == "a100") return "ampere";
  if (device == "h100" || device == "h200" || device == "h800") return "hopper";
  return device;
}

PredictionInterval interval_from(std::span<const ValidationRow> rows, std::string_view generation,
                                 std::string_view family, double iteration_s) {
  std::vector<double> errors = errors_of(rows, generation, family);
  std::string basis = fmt::format("{} models on {} GPUs", family, generation);
  if (errors.size() < kFewestRows) {
    errors = errors_of(rows, "", family);
    basis = fmt::format("{} models on every GPU generation", family);
  }
  if (errors.size() < kFewestRows) {
    errors = errors_of(rows, "", "");
    basis = "every model and GPU generation";
  }
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
  if (model_family(scenario.model.kind.value).empty()) {
    return fmt::format("no test row is of the family of '{}'", scenario.model.kind.value);
  }
  // A dense family's errors do not judge a mixture of experts (profile:gpt with experts).
  if (record.fewer_active_parameters()) return "no test row is a mixture of experts";
  if (scenario.training.parallelism.context > 1) return "no test row splits its sequences over a context group";
  const std::string generation(device_generation(scenario.cluster.device_of(0).name));
  // Workers share a handful of profiles: each is looked up in the catalog once, not once a worker.
  const scenario::DeviceProfile* judged = nullptr;
  for (int rank = 0; rank < scenario.cluster.workers; ++rank) {
    const scenario::DeviceProfile& device = scenario.cluster.device_of(rank);
    if (judged != nullptr && device == *judged) continue;
    if (device_generation(device.name) != generation) {
      return fmt::format("each test row ran on one GPU generation, and worker {}'s '{}' is not worker 0's {}", rank,
                         device.name, generation);
    }
    if (!judged_by_test_rows(device)) {
      return fmt::format("the test rows ran built-in Volta, Ampere and Hopper GPUs at their catalog figures in 16 bits, "
                         "and worker {}'s '{}' in {} is not one",
                         rank, device.name, scenario::to_string(device.precision));
    }
    judged = &device;
  }
  return {};
}

std::optional<PredictionInterval> prediction_interval(const scenario::Scenario& scenario, const RunRecord& record) {
  if (!scenario.model.timing_only || record.iterations <= 0 || record.simulated_s <= 0.0) return std::nullopt;
  if (!missing_interval_reason(scenario, record).empty()) return std::nullopt;
  return interval_from(validation_test_rows(), device_generation(scenario.cluster.device_of(0).name),
                       model_family(scenario.model.kind.value),
                       record.simulated_s / static_cast<double>(record.iterations));
}

std::string interval_line(const PredictionInterval& interval) {
  return fmt::format("a real run's iteration {:.4g}-{:.4g} s (predicted {:.4g} s), by the 10th-90th percentile of "
                     "dtsim's errors on {} test rows of {} (docs/validation.md)",
                     interval.low_s, interval.high_s, interval.iteration_s, interval.rows, interval.basis);
}

}  // namespace dtsim::metrics
