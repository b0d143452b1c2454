#pragma once
// The closed sets of the scenario language that are not plug-ins (network models, architectures, compute
// backends): each value's name and description in one table, from which the schema's choices, the reading
// of a validated name and the name written back are all taken.

#include "sim/core/schema.hpp"
#include "sim/scenario/scenario.hpp"

#include <stdexcept>
#include <string_view>
#include <vector>

namespace dtsim::scenario {

template <class Enum>
struct NamedValue {
  Enum value;
  std::string_view name;
  std::string_view description;
  bool planned = false;  ///< in the language, not simulated yet
};

const std::vector<NamedValue<NetworkModel>>& network_models();

/// What a network model does beyond its name, in one place: the scenario's checks, the reports and the
/// runtime's backends (runtime/network_backend.hpp) read it, and no layer names a model for it.
struct NetworkModelTraits {
  /// A network of dtsim's times the timing-only collectives (and a pipeline's messages) at once, for the whole
  /// group, instead of SimGrid message by message; ranks that behave alike may then stand for each other.
  bool times_phases_at_once = false;
  /// Concurrent flows share the links (closed_form times each flow as if alone).
  bool shares_links = true;
  /// How reports and errors name that network ("the analytical network"); empty for SimGrid's models.
  std::string_view network_name;
};
[[nodiscard]] const NetworkModelTraits& traits_of(NetworkModel model);
const std::vector<NamedValue<Architecture>>& architectures();
const std::vector<NamedValue<Backend>>& backends();
const std::vector<NamedValue<models::PipelineSchedule>>& pipeline_schedules();
const std::vector<NamedValue<models::Recomputation>>& recomputations();
const std::vector<NamedValue<models::RecomputedModule>>& recomputed_modules();
const std::vector<NamedValue<TokenDispatcher>>& token_dispatchers();
const std::vector<NamedValue<models::RoutingDistribution>>& routing_distributions();
const std::vector<NamedValue<ContextAttention>>& context_attentions();
const std::vector<NamedValue<models::StageSplit::Kind>>& stage_splits();
/// The parts of a model outside its blocks an even split may count as a block (`pipeline_split_counts`).
const std::vector<NamedValue<std::string_view>>& stage_split_counts();
const std::vector<NamedValue<CommunicationLibrary>>& communication_libraries();
const std::vector<NamedValue<models::Partitioning>>& partitionings();
const std::vector<NamedValue<ComputePrecision>>& compute_precisions();
const std::vector<NamedValue<JobPlacement>>& job_placements();
const std::vector<NamedValue<SchedulePolicy>>& schedule_policies();
const std::vector<NamedValue<Preemption>>& preemptions();
const std::vector<NamedValue<JitterDistribution>>& jitter_distributions();

/// The value called `name` (validated against the same table's choices, so it is there).
template <class Enum>
Enum value_named(const std::vector<NamedValue<Enum>>& table, std::string_view name) {
  for (const auto& entry : table) {
    if (entry.name == name) return entry.value;
  }
  throw std::logic_error("unvalidated name '" + std::string(name) + "'");
}

template <class Enum>
std::string_view name_of(const std::vector<NamedValue<Enum>>& table, Enum value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  throw std::logic_error("a value without a name");
}

/// The table as the schema's choices, in table order.
template <class Enum>
std::vector<core::Choice> choices_of(const std::vector<NamedValue<Enum>>& table) {
  std::vector<core::Choice> out;
  for (const auto& entry : table) out.push_back({std::string(entry.name), std::string(entry.description), entry.planned});
  return out;
}

}  // namespace dtsim::scenario
