#include "sim/app/scenario_resolver.hpp"

#include "models/synthetic_classification.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace dtsim::app {
namespace {

/// Checks `name` against a set of available names; planned names get "not supported yet".
void check_name(core::DiagnosticSink& sink, const scenario::Located<std::string>& name, const std::string& key,
                const std::string& kind, const std::vector<std::string>& available) {
  if (std::find(available.begin(), available.end(), name.value) != available.end()) return;
  const std::vector<std::string>& planned = planned_names(kind);
  const std::string supported = fmt::format("supported {} names: {}", kind, core::join_names(available));
  if (std::find(planned.begin(), planned.end(), name.value) != planned.end()) {
    sink.error(name.where, key, fmt::format("{} '{}' is not supported yet", kind, name.value), supported);
    return;
  }
  std::vector<std::string> all = available;
  all.insert(all.end(), planned.begin(), planned.end());
  std::string hint = supported;
  if (const auto closest = core::closest_name(name.value, all)) hint = fmt::format("did you mean '{}'? {}", *closest, hint);
  sink.error(name.where, key, fmt::format("unknown {} '{}'", kind, name.value), hint);
}

}  // namespace

runtime::TrainingSetup resolve_scenario(const scenario::Scenario& scenario, const Registries& registries) {
  const auto& s = scenario;
  core::DiagnosticSink sink;
  check_name(sink, s.topology.kind, "topology.kind", "topology", registries.topologies.names());
  check_name(sink, s.model.kind, "model.kind", "model", registries.models.names());
  check_name(sink, s.training.sync_strategy, "training.sync.strategy", "sync strategy", registries.strategies.names());
  check_name(sink, s.data.kind, "data.kind", "data kind", {"synthetic_classification"});
  check_name(sink, s.training.optimizer.kind, "training.optimizer.kind", "optimizer", {"sgd"});
  if (s.training.architecture == scenario::Architecture::Allreduce) {
    check_name(sink, s.training.allreduce_algorithm, "training.architecture.algorithm", "allreduce algorithm", {"ring"});
  }
  sink.throw_if_any();

  topology::TopologyGraph graph = registries.topologies.find(s.topology.kind.value).factory(s.cluster, s.topology);
  std::unique_ptr<sync::SyncStrategy> strategy = registries.strategies.find(s.training.sync_strategy.value).factory();

  if (s.training.architecture == scenario::Architecture::ParameterServer && graph.servers().empty()) {
    sink.error(s.training.architecture_at, "training.architecture.kind",
               fmt::format("a parameter_server architecture needs a server, and a '{}' topology has none",
                           s.topology.kind.value),
               "set topology.kind to parameter_server");
  }
  if (s.training.architecture == scenario::Architecture::Allreduce && !strategy->lock_step()) {
    sink.error(s.training.sync_strategy.where, "training.sync.strategy",
               fmt::format("'{}' lets workers drift apart, which an allreduce cannot do", s.training.sync_strategy.value),
               "use training.architecture.kind: parameter_server");
  }

  const models::SyntheticClassificationParams data_params{static_cast<std::size_t>(s.data.samples),
                                                          static_cast<std::size_t>(s.data.features),
                                                          s.data.validation_fraction, s.data.label_noise};
  const std::size_t validation = models::validation_samples(data_params);
  const std::size_t train = data_params.samples - validation;
  const auto needed = static_cast<std::size_t>(s.cluster.workers) * static_cast<std::size_t>(s.training.batch_per_worker);
  if (validation == 0) {
    sink.error(s.data.validation_fraction_at, "data.validation_fraction",
               fmt::format("leaves no validation samples out of {}", s.data.samples),
               "raise data.validation_fraction or data.samples");
  }
  if (train < needed) {
    sink.error(s.data.samples_at, "data.samples",
               fmt::format("{} training samples cannot fill one batch of {} on each of {} workers ({} needed)", train,
                           s.training.batch_per_worker, s.cluster.workers, needed),
               "raise data.samples, or lower training.batch.per_worker or cluster.workers");
  }
  sink.throw_if_any();

  models::BatchSchedule schedule(train, s.cluster.workers, s.training.batch_per_worker, s.seed);
  const auto iterations_per_epoch = static_cast<std::int64_t>(schedule.iterations_per_epoch());
  return runtime::TrainingSetup{
      .graph = std::move(graph),
      .model = registries.models.find(s.model.kind.value).factory(static_cast<std::size_t>(s.data.features)),
      .sync = std::move(strategy),
      .data = models::make_synthetic_classification(data_params, s.seed),
      .schedule = schedule,
      .total_iterations = iterations_per_epoch * s.training.epochs,
      .evaluate_every = s.training.evaluate_every > 0 ? s.training.evaluate_every : iterations_per_epoch,
  };
}

}  // namespace dtsim::app
