#include "sim/plan/plan_search.hpp"

#include "sim/checks/memory_checks.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/units.hpp"
#include "sim/plan/plan_estimate.hpp"
#include "sim/plan/study_scenario.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"
#include "sim/scenario/scenario_builder.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace dtsim::planner {
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

Verdict check_candidate(const scenario::Scenario& s, const sync::SyncStrategy& strategy,
                        const models::ModelProfile& profile, const checks::Registries& registries,
                        models::PassOrders& orders) {
  Verdict out;
  core::DiagnosticSink sink;
  checks::check_split(s, strategy, &profile, registries, sink);
  if (sink.empty()) {
    const std::vector<metrics::DeviceMemory> memory = checks::device_memory(s, profile, registries, &orders);
    checks::check_memory(s, memory, sink);
    out.memory_bytes = largest(memory);
  }
  if (!sink.empty()) {
    const core::Diagnostic& first = sink.diagnostics().front();
    out.discarded = first.key == "cluster.device" ? "memory" : first.key;
    out.detail = first.message;
  }
  return out;
}

/// The first count of `candidate` above its bound, as the key a run would refuse and the schema's message; none
/// when a scenario can hold it.
std::optional<std::pair<std::string, std::string>> beyond_bounds(const PlanCandidate& candidate, const DegreeBounds& bounds) {
  const auto refused = [](std::string_view key, int value, int most) {
    return std::pair{fmt::format("training.parallelism.{}", key),
                     fmt::format("must be between 1 and {}, got {}", most, value)};
  };
  // The degrees in the planner's order, then the counts.
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    if (candidate.degree(axis) > bounds.degree(axis)) {
      return refused(scenario::axis_entry(axis).name, candidate.degree(axis), bounds.degree(axis));
    }
  }
  if (candidate.microbatches > bounds.microbatches) {
    return refused("microbatches", candidate.microbatches, bounds.microbatches);
  }
  if (candidate.virtual_stages > bounds.virtual_stages) {
    return refused("virtual_stages", candidate.virtual_stages, bounds.virtual_stages);
  }
  return std::nullopt;
}

/// Within each run of equal estimates (ordered by memory), every row after the first of its placement is that
/// one's twin. Rows placed apart are never twins: an estimate alike says only that it cannot tell the orders
/// apart (Mixtral 8x7B's t1 p4 e8 d16 estimated the same placed t-p-d and t-d-p), and the simulation can.
void mark_same_estimates(std::vector<analysis::PlanRow>& fitting) {
  std::map<std::string, std::string> standing;  // the run's first split of each placement
  for (std::size_t i = 0; i < fitting.size(); ++i) {
    if (i == 0 || fitting[i].estimate_s != fitting[i - 1].estimate_s) standing.clear();
    const auto [first, fresh] = standing.try_emplace(fitting[i].placement, fitting[i].split);
    if (!fresh) fitting[i].same_as = first->second;
  }
}

/// Orders fitting rows as a plan lists them: by estimate, then memory, then the split's name.
bool listed_before(const analysis::PlanRow& a, const analysis::PlanRow& b) {
  if (a.estimate_s != b.estimate_s) return a.estimate_s < b.estimate_s;
  return a.memory_bytes != b.memory_bytes ? a.memory_bytes < b.memory_bytes : a.split < b.split;
}

/// Screens candidates one at a time on one scenario over their devices, split as each in turn: the schema's
/// bounds, the checks a run makes, the memory model and --max-memory, then the estimate.
class CandidateScreen {
 public:
  /// `s`, `profile` and `registries` must outlive the screen.
  CandidateScreen(scenario::Scenario& s, const models::ModelProfile& profile, const checks::Registries& registries,
                  SearchLimits limits)
      : s_(s), profile_(profile), registries_(registries), limits_(std::move(limits)),
        graph_(scenario::build_topology(s, registries.topologies)), strategy_(checks::make_strategy(s, registries)),
        estimator_(profile, graph_) {}
  CandidateScreen(const CandidateScreen&) = delete;
  CandidateScreen& operator=(const CandidateScreen&) = delete;

  /// `candidate`'s row for a global batch of `batch`: discarded with its reason, or estimated.
  analysis::PlanRow row(const PlanCandidate& candidate, std::int64_t batch) {
    analysis::PlanRow out = row_of(candidate);
    if (const auto beyond = beyond_bounds(candidate, limits_.bounds)) {
      std::tie(out.discarded, out.detail) = *beyond;
      return out;
    }
    apply_candidate(candidate, batch, s_);
    // The checks and the memory model see no placement: candidates that differ in it alone (enumerated together)
    // share the verdict of the first of them.
    if (const std::string split = candidate.split_label(); split != checked_) {
      verdict_ = check_candidate(s_, *strategy_, profile_, registries_, orders_);
      checked_ = split;
    }
    out.memory_bytes = verdict_.memory_bytes;
    if (!verdict_.discarded.empty()) {
      out.discarded = verdict_.discarded;
      out.detail = verdict_.detail;
      return out;
    }
    if (limits_.max_memory_bytes && out.memory_bytes > *limits_.max_memory_bytes) {
      out.discarded = "--max-memory";
      out.detail = fmt::format("a device holds {:.2f} GiB, above the {:.2f} GiB allowed", out.memory_bytes / (1 << 30),
                               *limits_.max_memory_bytes / (1 << 30));
      return out;
    }
    out.estimate_s = estimator_.estimate(s_, checks::overlaps_gradients(s_, *strategy_)).iteration_s;
    out.estimate_tokens_per_s = units_per_iteration(profile_, batch) / out.estimate_s;
    return out;
  }

 private:
  scenario::Scenario& s_;
  const models::ModelProfile& profile_;
  const checks::Registries& registries_;
  SearchLimits limits_;
  topology::TopologyGraph graph_;
  std::unique_ptr<sync::SyncStrategy> strategy_;
  SplitEstimator estimator_;  ///< over graph_
  std::string checked_;       ///< the split whose verdict verdict_ is
  Verdict verdict_;
  models::PassOrders orders_;  ///< the memory model's pipeline orders, shared by the candidates
};

/// The row of a split whose data degree does not divide the batch: its degrees alone, since none of its other
/// choices is enumerated, listed in plan_candidates.csv as every candidate counted is.
analysis::PlanRow undivided_row(const PlanCandidate& split, std::int64_t batch) {
  analysis::PlanRow row = row_of(split);
  row.split = split.degrees_label();
  row.degrees_only = true;
  row.discarded = "training.batch";
  row.detail = fmt::format("the data-parallel degree {} does not divide the batch of {} samples",
                           split.degree(scenario::ParallelAxis::Data), batch);
  return row;
}

/// A choice the user fixed, as the flag that fixes it ("--tensor 3"), and how to leave it free.
struct FixedChoice {
  std::string flag;
  std::function<void(PlanSpace&)> release;
};

/// The choices `space` fixes, in the order `dtsim plan --help` lists their flags.
std::vector<FixedChoice> fixed_choices(const PlanSpace& space) {
  std::vector<FixedChoice> out;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    const std::optional<int>& degree = space.degree(axis);
    if (!degree) continue;
    out.push_back({fmt::format("{} {}", degree_flag(axis), *degree),
                   [axis](PlanSpace& s) { s.degree(axis).reset(); }});
  }
  using Count = std::optional<int> PlanSpace::*;
  const std::array<std::pair<const char*, Count>, 2> counts{{{"microbatches", &PlanSpace::microbatches},
                                                             {"zero", &PlanSpace::zero}}};
  for (const auto& entry : counts) {
    const Count count = entry.second;
    if (!(space.*count)) continue;
    out.push_back({fmt::format("--{} {}", entry.first, *(space.*count)),
                   [count](PlanSpace& s) { s.*count = std::nullopt; }});
  }
  if (space.recomputation) {
    out.push_back({fmt::format("--recomputation {}", scenario::to_string(*space.recomputation)),
                   [](PlanSpace& s) { s.recomputation.reset(); }});
  }
  if (space.schedule) {
    out.push_back({fmt::format("--schedule {}", scenario::to_string(*space.schedule)),
                   [](PlanSpace& s) { s.schedule.reset(); }});
  }
  if (space.keep_placement) {
    out.push_back({"--keep-placement", [](PlanSpace& s) {
                     s.keep_placement = false;
                     s.placement.reset();
                   }});
  }
  return out;
}

/// "a", "a and b", "a, b and c".
std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  }
  return out;
}

/// Whether `space` gives any candidate over `devices` devices to screen (the enumeration stops at the first).
bool any_candidate(const PlanSpace& space, int devices, const models::TransformerShape& shape, std::int64_t batch) {
  bool found = false;
  std::int64_t undivided = 0;
  for_each_candidate(space, devices, shape, batch, undivided, [&](const PlanCandidate&) {
    found = true;
    return false;
  });
  return found;
}

/// The flags of the `fixed` choices of `space` that leave no candidate to screen: each one without which there would
/// be some; all of them where none alone is.
std::vector<std::string> ruling_out(const std::vector<FixedChoice>& fixed, const PlanSpace& space, int devices,
                                    const models::TransformerShape& shape, std::int64_t batch) {
  std::vector<std::string> out;
  for (const FixedChoice& choice : fixed) {
    PlanSpace freed = space;
    choice.release(freed);
    if (any_candidate(freed, devices, shape, batch)) out.push_back(choice.flag);
  }
  if (out.empty()) {
    for (const FixedChoice& choice : fixed) out.push_back(choice.flag);
  }
  return out;
}

/// `bytes` as --max-memory takes it, in the largest binary unit that holds it whole ("70GiB", "1B").
std::string size_argument(double bytes) {
  static constexpr std::array<std::pair<double, const char*>, 4> kUnits{
      {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}}};
  for (const auto& [factor, unit] : kUnits) {
    if (bytes >= factor && std::fmod(bytes, factor) == 0.0) return fmt::format("{:.0f}{}", bytes / factor, unit);
  }
  return fmt::format("{:.0f}B", bytes);
}

/// What to change where no candidate fits: the fixed choices that leave none to screen; else --max-memory, where it
/// discards those that pass every check; else the choices fixed, or the device count.
std::string unfit_hint(const DeviceSearch& found, const PlanSpace& space, const SearchLimits& limits,
                       const models::TransformerShape& shape, const std::string& other_counts) {
  const std::vector<FixedChoice> fixed = fixed_choices(space);
  const auto them = [](std::size_t n) { return n == 1 ? "it" : "them"; };
  if (found.candidates == 0 && !fixed.empty()) {
    const std::vector<std::string> flags = ruling_out(fixed, space, found.devices, shape, found.batch);
    return fmt::format("{} rule{} out every split of {} devices: change {} or leave {} out", listed(flags),
                       flags.size() == 1 ? "s" : "", found.devices, them(flags.size()), them(flags.size()));
  }
  const auto capped = std::find_if(found.discards.begin(), found.discards.end(),
                                   [](const analysis::PlanDiscard& d) { return d.reason == "--max-memory"; });
  if (capped != found.discards.end() && limits.max_memory_bytes) {
    return fmt::format("--max-memory {} rules out {} that pass{} every check: allow more memory, or leave it out",
                       size_argument(*limits.max_memory_bytes),
                       capped->count == 1 ? "the one candidate" : fmt::format("the {} candidates", capped->count),
                       capped->count == 1 ? "es" : "");
  }
  if (fixed.empty()) return fmt::format("every split of {} devices is discarded: {}", found.devices, other_counts);
  std::vector<std::string> flags;
  for (const FixedChoice& choice : fixed) flags.push_back(choice.flag);
  return fmt::format("every candidate that {} leave{} is discarded: leave {} out, or {}", listed(flags),
                     flags.size() == 1 ? "s" : "", them(flags.size()), other_counts);
}

}  // namespace

DegreeBounds degree_bounds(const scenario::ScenarioFormat& format) {
  const auto most = [&](std::string_view key) {
    const core::SchemaNode* node = format.find("training.parallelism." + std::string(key));
    return node == nullptr ? std::numeric_limits<int>::max()
                           : static_cast<int>(std::min<std::int64_t>(node->integer_max, std::numeric_limits<int>::max()));
  };
  DegreeBounds out{.microbatches = most("microbatches"), .virtual_stages = most("virtual_stages")};
  for (const scenario::AxisEntry& entry : scenario::parallel_axes()) out.degree(entry.axis) = most(entry.name);
  return out;
}

void check_space_bounds(const PlanSpace& space, const DegreeBounds& bounds, const std::string& command) {
  // The degrees in the planner's order (the data degree is never fixed), then the micro-batches: each flag, its
  // key, the value given and the bound.
  std::vector<std::tuple<std::string, std::string, std::optional<int>, int>> fixed;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    fixed.emplace_back(degree_flag(axis), std::string(scenario::axis_entry(axis).name), space.degree(axis),
                       bounds.degree(axis));
  }
  fixed.emplace_back("--microbatches", "microbatches", space.microbatches, bounds.microbatches);
  for (const auto& [flag, key, value, most] : fixed) {
    if (value && *value > most) {
      throw core::InputError(core::Diagnostic{
          {command}, flag,
          fmt::format("must be between 1 and {} (training.parallelism.{} of a scenario), got {}", most, key, *value),
          fmt::format("give {} {} or less, or leave it out", flag, most)});
    }
  }
}

void check_memory_cap(const std::optional<double>& max_memory_bytes, const scenario::Scenario& base,
                      const std::string& command) {
  if (!max_memory_bytes || !base.training.check_memory) return;
  // The largest device bounds the cap: below it, the cap still rules out what that device would hold.
  const scenario::DeviceProfile* largest = nullptr;
  const auto consider = [&](const scenario::DeviceProfile& device) {
    if (device.memory && (largest == nullptr || device.memory->value() > largest->memory->value())) largest = &device;
  };
  if (base.cluster.worker_devices.empty()) consider(base.cluster.device);
  for (const scenario::DeviceProfile& device : base.cluster.worker_devices) consider(device);
  if (largest == nullptr || *max_memory_bytes <= largest->memory->value()) return;
  throw core::InputError(core::Diagnostic{
      {command}, "--max-memory",
      fmt::format("{} is more than a device holds: the {} devices hold {} each, which bounds every candidate already",
                  core::format_size(core::Bytes(*max_memory_bytes)), largest->name, core::format_size(*largest->memory)),
      fmt::format("give --max-memory {} or less, or leave it out", size_argument(largest->memory->value()))});
}

analysis::PlanRow row_of(const PlanCandidate& candidate) {
  analysis::PlanRow row;
  row.devices = candidate.devices;
  row.split = candidate.label();
  row.degrees = candidate.degrees;
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
                                                 const checks::Registries& registries, const SearchLimits& limits) {
  CandidateScreen screen(s, profile, registries, limits);
  std::vector<analysis::PlanRow> fitting;
  std::vector<analysis::PlanRow> discarded;
  for (const PlanCandidate& candidate : candidates) {
    analysis::PlanRow row = screen.row(candidate, batch);
    (row.discarded.empty() ? fitting : discarded).push_back(std::move(row));
  }
  std::stable_sort(fitting.begin(), fitting.end(), listed_before);
  mark_same_estimates(fitting);
  fitting.insert(fitting.end(), std::make_move_iterator(discarded.begin()), std::make_move_iterator(discarded.end()));
  return fitting;
}

PlanCandidate candidate_of_row(const analysis::PlanRow& row) {
  PlanCandidate out{.devices = row.devices, .degrees = row.degrees, .microbatches = row.microbatches, .zero = row.zero,
                    .recomputation = scenario::value_named(scenario::recomputations(), row.recomputation),
                    .schedule = scenario::value_named(scenario::pipeline_schedules(), row.schedule),
                    .virtual_stages = row.virtual_stages};
  // The placement is the axes' labels joined by dashes ("t-d-p"), which tell the axes apart.
  out.order.clear();
  for (std::size_t from = 0; from <= row.placement.size();) {
    const std::size_t dash = std::min(row.placement.find('-', from), row.placement.size());
    const std::string_view label = std::string_view(row.placement).substr(from, dash - from);
    for (const scenario::AxisEntry& entry : scenario::parallel_axes()) {
      if (entry.label == label) out.order.push_back(entry.axis);
    }
    from = dash + 1;
  }
  return out;
}

void PlanTally::add(analysis::PlanRow row) {
  ++screened_;
  if (!row.discarded.empty()) {
    // The first candidate discarded for a reason is its example, as analysis::count_discards takes it.
    const auto [entry, fresh] =
        discards_.try_emplace(row.discarded, analysis::PlanDiscard{row.discarded, 0, row.split + ": " + row.detail});
    ++entry->second.count;
    spill_.add(row);
    return;
  }
  ++fitting_;
  offer_front(row);
  std::vector<analysis::PlanRow>& same = best_[row.estimate_s];
  same.insert(std::upper_bound(same.begin(), same.end(), row, listed_before), std::move(row));
  if (best_.size() <= keep_) return;
  // The worst estimate held goes, its rows set aside but for one the front still holds.
  const auto worst = std::prev(best_.end());
  std::vector<analysis::PlanRow> gone = std::move(worst->second);
  best_.erase(worst);
  mark_same_estimates(gone);
  for (const analysis::PlanRow& r : gone) {
    const auto on_front = front_.find(r.memory_bytes);
    if (on_front == front_.end() || on_front->second.split != r.split) set_aside(r);
  }
}

void PlanTally::set_aside(const analysis::PlanRow& row) {
  if (pinned_.count(row.split) > 0) {
    pinned_rows_.push_back(row);
  } else {
    spill_.add(row);
  }
}

bool PlanTally::held(const analysis::PlanRow& row) const {
  const auto same = best_.find(row.estimate_s);
  return same != best_.end() && std::any_of(same->second.begin(), same->second.end(),
                                            [&](const analysis::PlanRow& r) { return r.split == row.split; });
}

void PlanTally::offer_front(const analysis::PlanRow& row) {
  // As report.html draws the front: by memory, the fastest first, each on it where it is faster than every one
  // with no more memory. One with no more memory and no less speed keeps this one off.
  const double rate = row.estimate_tokens_per_s;
  const auto above = front_.upper_bound(row.memory_bytes);
  if (above != front_.begin() && std::prev(above)->second.estimate_tokens_per_s >= rate) return;
  // Those this one beats with no less memory leave it (set aside where the best held does not hold them).
  auto beaten = front_.lower_bound(row.memory_bytes);
  while (beaten != front_.end() && beaten->second.estimate_tokens_per_s <= rate) {
    if (!held(beaten->second)) set_aside(beaten->second);
    beaten = front_.erase(beaten);
  }
  front_.insert_or_assign(row.memory_bytes, row);
}

std::vector<analysis::PlanRow> PlanTally::rows() const {
  std::vector<analysis::PlanRow> out;
  for (const auto& [estimate, same] : best_) {
    std::vector<analysis::PlanRow> group = same;
    mark_same_estimates(group);
    out.insert(out.end(), std::make_move_iterator(group.begin()), std::make_move_iterator(group.end()));
  }
  // The front's and the pinned rows beyond the best held are estimated slower than all of those: they follow, in
  // order.
  std::vector<analysis::PlanRow> beyond = pinned_rows_;
  for (const auto& [memory, row] : front_) {
    if (!held(row)) beyond.push_back(row);
  }
  std::sort(beyond.begin(), beyond.end(), listed_before);
  out.insert(out.end(), std::make_move_iterator(beyond.begin()), std::make_move_iterator(beyond.end()));
  return out;
}

std::vector<analysis::PlanDiscard> PlanTally::discards(std::int64_t undivided, std::int64_t batch) const {
  return analysis::count_discards(discards_, undivided, batch);
}

models::ModelProfile profile_of(const scenario::Scenario& s, const checks::Registries& registries) {
  const core::View section(&s.model.section, "model");
  try {
    return registries.models.find(s.model.kind.value).factory.profile(section);
  } catch (const models::ProfileError& error) {
    throw core::InputError(core::Diagnostic{section.where(error.key()), "model." + error.key(), error.what(), error.hint()});
  }
}

std::string yaml_quoted(std::string_view text) {
  // JSON's escapes are YAML's; ensure_ascii turns U+0085, U+2028 and U+2029 (line breaks to some YAML readers)
  // into \u escapes, and replacing invalid UTF-8 keeps a hostile name from stopping the write.
  return nlohmann::json(std::string(text)).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

std::string points_scenario(const std::string& title, const std::filesystem::path& file,
                            const std::vector<std::string>& points) {
  std::string out = fmt::format("# {}\ninclude: {}\nsweep:\n  points:\n", core::printable(title),
                                yaml_quoted(std::filesystem::absolute(file).string()));
  for (const std::string& point : points) out += "    - " + point + "\n";
  return out;
}

const analysis::PlanRow* DeviceSearch::best() const {
  const auto found = std::find_if(rows.begin(), rows.end(), [](const analysis::PlanRow& row) {
    return row.discarded.empty() && row.same_as.empty();
  });
  return found == rows.end() ? nullptr : &*found;
}

namespace {

/// A space of more than `most` candidates (`total`) over `devices` is refused at --gpus, naming the choices left to
/// the search, any of which fixed divides it.
[[noreturn]] void refuse_large_space(const PlanSpace& space, int devices, std::int64_t total, std::int64_t most) {
  std::vector<std::string> free;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    if (!space.degree(axis) && axis != scenario::ParallelAxis::Data) free.push_back(degree_flag(axis));
  }
  if (!space.microbatches) free.emplace_back("--microbatches");
  if (!space.zero) free.emplace_back("--zero");
  if (!space.recomputation) free.emplace_back("--recomputation");
  if (!space.schedule) free.emplace_back("--schedule");
  std::string hint = "plan fewer devices";
  if (!free.empty()) {
    hint = fmt::format("fix some of the choices the search makes ({}), or {}", fmt::join(free, ", "), hint);
  }
  throw core::InputError(core::Diagnostic{
      {"dtsim plan"}, "--gpus",
      fmt::format("{} devices leave {} candidates to screen, more than the {} a search screens (some minutes)",
                  devices, total, most),
      std::move(hint)});
}

}  // namespace

DeviceSearch search_devices(const PlanSpace& space, const SearchLimits& limits, int devices, std::int64_t batch,
                            const scenario::Scenario& base, const models::ModelProfile& profile,
                            const scenario::ScenarioFormat& format, const SearchSource& source,
                            const checks::Registries& registries) {
  DeviceSearch out;
  out.devices = devices;
  out.batch = batch;
  PlanSpace fixed = space;
  if (fixed.keep_placement) fixed.placement = core_order(base.training.parallelism);
  // A scenario on the experts' own grid keeps it, at its own expert-tensor degree unless --expert-tensor says
  // otherwise: its expert degrees are then tried over a stage's devices (folded) too.
  const scenario::ParallelismSpec& declared = base.training.parallelism;
  if (declared.expert_tensor_declared && !fixed.degree(scenario::ParallelAxis::ExpertTensor)) {
    fixed.degree(scenario::ParallelAxis::ExpertTensor) = declared.expert_tensor;
  }
  // Modules listed for selective recomputation keep it selective unless --recomputation says otherwise (with none
  // or full, the list would be refused by every candidate's scenario).
  if (base.training.recompute_modules_declared && !fixed.recomputation) {
    fixed.recomputation = models::Recomputation::Selective;
  }
  SearchLimits bounded = limits;
  bounded.bounds = degree_bounds(format);
  const std::int64_t total = count_candidates(fixed, devices, profile.shape, batch);
  if (total > bounded.most_candidates) refuse_large_space(space, devices, total, bounded.most_candidates);
  // The scenario over this many devices is split as the first candidate a scenario can hold (the first of 65,536
  // devices may have 2,048 stages, which the schema refuses, as an error in the generated file that is never
  // written); each candidate then replaces the split.
  std::optional<PlanCandidate> held;
  std::int64_t skipped = 0;
  for_each_candidate(fixed, devices, profile.shape, batch, skipped, [&](const PlanCandidate& c) {
    if (beyond_bounds(c, bounded.bounds)) return true;
    held = c;
    return false;
  });
  std::optional<scenario::ScenarioDocument> first;
  std::optional<CandidateScreen> screen;
  if (held) {
    const std::string text = points_scenario("the scenario over the devices", source.scenario_file,
                                             {sweep_point_yaml(*held, batch, base)});
    first = read_study_scenario(format, text, source.generated, base, source.confine);
    screen.emplace(first->points.front(), profile, registries, bounded);
  }
  // Each candidate is screened as it is enumerated and tallied: a space of millions (9.1 million over 512 devices
  // of Mixtral 8x7B) holds the best kept and no more, where every row held ran out of memory.
  out.spilled = std::make_shared<analysis::RowSpill>();
  PlanTally tally(bounded.keep, *out.spilled, bounded.pinned);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  Clock::time_point reported = started;
  SearchProgress progress{.devices = devices};
  progress.total = total;
  const auto report = [&](bool finished) {
    progress.screened = tally.screened();
    progress.fitting = tally.fitting();
    progress.best_estimate_s = tally.best_estimate_s();
    progress.elapsed_s = std::chrono::duration<double>(Clock::now() - started).count();
    progress.finished = finished;
    source.progress(progress);
  };
  const auto visit = [&](const PlanCandidate& c) {
    if (screen) {
      tally.add(screen->row(c, batch));
    } else {
      analysis::PlanRow row = row_of(c);
      std::tie(row.discarded, row.detail) = *beyond_bounds(c, bounded.bounds);
      tally.add(std::move(row));
    }
    // The clock is read every 1,024 candidates (a few hundredths of a second of screening).
    if (source.progress && tally.screened() % 1024 == 0 && Clock::now() - reported > std::chrono::milliseconds(500)) {
      reported = Clock::now();
      report(false);
    }
    return true;
  };
  for_each_candidate(fixed, devices, profile.shape, batch, out.undivided, visit,
                     [&](const PlanCandidate& split) { out.spilled->add(undivided_row(split, batch)); });
  if (source.progress) report(true);
  out.candidates = tally.screened();
  out.fitting = tally.fitting();
  out.rows = tally.rows();
  out.discards = tally.discards(out.undivided, batch);
  return out;
}

void refuse_unfit(const DeviceSearch& found, const PlanSpace& space, const SearchLimits& limits,
                  const models::TransformerShape& shape, const std::filesystem::path& scenario_file,
                  const std::string& other_counts) {
  std::string message =
      fmt::format("no split of the model over {} devices with a global batch of {} fits: ", found.devices, found.batch);
  const std::int64_t candidates = found.candidates + found.undivided;
  std::string counted;
  for (const analysis::PlanDiscard& d : found.discards) {
    counted += fmt::format("{}{} {}", counted.empty() ? "" : ", ", d.count, d.reason);
  }
  if (candidates == 0) {
    message += "the choices fixed leave no candidate";
  } else if (candidates == 1) {
    message += fmt::format("its one candidate is discarded ({})", counted);
  } else {
    message += fmt::format("{} candidates, every one discarded ({})", candidates, counted);
  }
  throw core::InputError(core::Diagnostic{{scenario_file.string()}, "training.parallelism", std::move(message),
                                          unfit_hint(found, space, limits, shape, other_counts)});
}

}  // namespace dtsim::planner
