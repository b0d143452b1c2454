#include "sim/app/plan_search.hpp"

#include "sim/app/memory_checks.hpp"
#include "sim/app/plan_estimate.hpp"
#include "sim/app/scenario_resolver.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/scenario_builder.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace dtsim::app {
namespace {

/// The tokens (or samples, for a model without sequences) of one iteration.
double units_per_iteration(const models::ModelProfile& profile, std::int64_t batch) {
  return static_cast<double>(batch) * std::max(1, profile.shape.sequence);
}

double largest(const std::vector<metrics::DeviceMemory>& memory) {
  double out = 0.0;
  for (const metrics::DeviceMemory& m : memory) out = std::max(out, m.total());
  return out;
}

/// What the checks and the memory model say of a split.
struct Verdict {
  double memory_bytes = 0.0;
  std::string discarded;  ///< the first problem's key ("memory" for the memory model's); "" when it fits
  std::string detail;
};

Verdict check_candidate(const scenario::Scenario& s, const sync::SyncStrategy& strategy, const models::ModelProfile& profile,
                        const Registries& registries) {
  Verdict out;
  core::DiagnosticSink sink;
  check_split(s, strategy, &profile, registries, sink);
  if (sink.empty()) {
    const std::vector<metrics::DeviceMemory> memory = device_memory(s, profile, registries);
    check_memory(s, memory, sink);
    out.memory_bytes = largest(memory);
  }
  if (!sink.empty()) {
    const core::Diagnostic& first = sink.diagnostics().front();
    out.discarded = first.key == "cluster.device" ? "memory" : first.key;
    out.detail = first.message;
  }
  return out;
}

/// Within each run of equal estimates (ordered by memory), every row after the first is the first's twin.
void mark_same_estimates(std::vector<analysis::PlanRow>& fitting) {
  for (std::size_t i = 1, first = 0; i < fitting.size(); ++i) {
    if (fitting[i].estimate_s != fitting[first].estimate_s) {
      first = i;
      continue;
    }
    fitting[i].same_as = fitting[first].split;
  }
}

}  // namespace

analysis::PlanRow row_of(const PlanCandidate& candidate) {
  analysis::PlanRow row;
  row.devices = candidate.devices;
  row.split = candidate.label();
  row.tensor = candidate.tensor;
  row.pipeline = candidate.pipeline;
  row.context = candidate.context;
  row.expert = candidate.expert;
  row.data = candidate.data;
  row.microbatches = candidate.microbatches;
  row.zero = candidate.zero;
  row.virtual_stages = candidate.virtual_stages;
  row.recomputation = std::string(scenario::to_string(candidate.recomputation));
  row.schedule = std::string(scenario::to_string(candidate.schedule));
  row.placement = candidate.placement();
  return row;
}

std::vector<analysis::PlanRow> screen_candidates(const std::vector<PlanCandidate>& candidates, std::int64_t batch,
                                                 scenario::Scenario& s, const models::ModelProfile& profile,
                                                 const Registries& registries, const SearchLimits& limits) {
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  const auto strategy = make_strategy(s, registries);
  const SplitEstimator estimator(profile, graph);
  std::vector<analysis::PlanRow> fitting;
  std::vector<analysis::PlanRow> discarded;
  // The checks and the memory model see no placement: candidates that differ in it alone (enumerated together)
  // share the verdict of the first of them.
  std::string checked;
  Verdict verdict;
  for (const PlanCandidate& candidate : candidates) {
    analysis::PlanRow row = row_of(candidate);
    apply_candidate(candidate, batch, s);
    if (const std::string split = candidate.split_label(); split != checked) {
      verdict = check_candidate(s, *strategy, profile, registries);
      checked = split;
    }
    row.memory_bytes = verdict.memory_bytes;
    if (!verdict.discarded.empty()) {
      row.discarded = verdict.discarded;
      row.detail = verdict.detail;
      discarded.push_back(std::move(row));
      continue;
    }
    if (limits.max_memory_bytes && row.memory_bytes > *limits.max_memory_bytes) {
      row.discarded = "--max-memory";
      row.detail = fmt::format("a device holds {:.2f} GiB, above the {:.2f} GiB allowed", row.memory_bytes / (1 << 30),
                               *limits.max_memory_bytes / (1 << 30));
      discarded.push_back(std::move(row));
      continue;
    }
    row.estimate_s = estimator.estimate(s, overlaps_gradients(s, *strategy)).iteration_s;
    row.estimate_tokens_per_s = units_per_iteration(profile, batch) / row.estimate_s;
    fitting.push_back(std::move(row));
  }
  std::stable_sort(fitting.begin(), fitting.end(), [](const analysis::PlanRow& a, const analysis::PlanRow& b) {
    if (a.estimate_s != b.estimate_s) return a.estimate_s < b.estimate_s;
    return a.memory_bytes != b.memory_bytes ? a.memory_bytes < b.memory_bytes : a.split < b.split;
  });
  mark_same_estimates(fitting);
  fitting.insert(fitting.end(), std::make_move_iterator(discarded.begin()), std::make_move_iterator(discarded.end()));
  return fitting;
}

models::ModelProfile profile_of(const scenario::Scenario& s, const Registries& registries) {
  const core::View section(&s.model.section, "model");
  try {
    return registries.models.find(s.model.kind.value).factory.profile(section);
  } catch (const models::ProfileError& error) {
    throw core::InputError(core::Diagnostic{section.where(error.key()), "model." + error.key(), error.what(), error.hint()});
  }
}

std::string points_scenario(const std::string& title, const std::filesystem::path& file,
                            const std::vector<std::string>& points) {
  std::string out = fmt::format("# {}\ninclude: {}\nsweep:\n  points:\n", title,
                                nlohmann::json(std::filesystem::absolute(file).string()).dump());
  for (const std::string& point : points) out += "    - " + point + "\n";
  return out;
}

const PlanCandidate& DeviceSearch::candidate_of(const analysis::PlanRow& row) const {
  const auto found = by_split.find(row.split);
  if (found == by_split.end()) throw std::logic_error("a plan row without its candidate: " + row.split);
  return candidates[found->second];
}

const analysis::PlanRow* DeviceSearch::best() const {
  const auto found = std::find_if(rows.begin(), rows.end(), [](const analysis::PlanRow& row) {
    return row.discarded.empty() && row.same_as.empty();
  });
  return found == rows.end() ? nullptr : &*found;
}

DeviceSearch search_devices(const PlanSpace& space, const SearchLimits& limits, int devices, std::int64_t batch,
                            const scenario::Scenario& base, const models::ModelProfile& profile,
                            const scenario::ScenarioFormat& format, const SearchSource& source,
                            const Registries& registries) {
  DeviceSearch out;
  PlanSpace fixed = space;
  if (fixed.keep_placement) fixed.placement = core_order(base.training.parallelism);
  out.candidates = enumerate_candidates(fixed, devices, profile.shape, batch, out.undivided);
  if (out.candidates.empty()) return out;
  for (std::size_t i = 0; i < out.candidates.size(); ++i) out.by_split.emplace(out.candidates[i].label(), i);
  // The scenario over this many devices, split as the first candidate; each candidate then replaces the split.
  scenario::LoadOptions load;
  load.confine = source.confine;
  const std::string text = points_scenario("the scenario over the devices", source.scenario_file,
                                           {sweep_point_yaml(out.candidates.front(), batch, base)});
  scenario::ScenarioDocument first = scenario::read_scenario_document_text(format, text, source.generated.string(), load);
  out.rows = screen_candidates(out.candidates, batch, first.points.front(), profile, registries, limits);
  return out;
}

}  // namespace dtsim::app
