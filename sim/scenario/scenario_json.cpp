#include "sim/scenario/scenario_json.hpp"

namespace dtsim::scenario {
namespace {

nlohmann::ordered_json link_json(const LinkSpec& link) {
  return {{"bandwidth_bytes_per_s", link.bandwidth.value()}, {"latency_s", link.latency.value()}};
}

}  // namespace

nlohmann::ordered_json to_json(const Scenario& scenario) {
  const auto& s = scenario;
  nlohmann::ordered_json topology = {{"kind", s.topology.kind.value},
                                     {"network_model", std::string(to_string(s.topology.network_model))},
                                     {"link", link_json(s.topology.link)}};
  if (s.topology.kind.value == "parameter_server") topology["server_link"] = link_json(s.topology.server_link);
  nlohmann::ordered_json architecture = {{"kind", std::string(to_string(s.training.architecture))}};
  if (s.training.architecture == Architecture::Allreduce) architecture["algorithm"] = s.training.allreduce_algorithm.value;
  return {
      {"name", s.name},
      {"source", s.source.generic_string()},
      {"seed", s.seed},
      {"cluster",
       {{"workers", s.cluster.workers},
        {"device",
         {{"name", s.cluster.device.name},
          {"peak_flops_per_s", s.cluster.device.peak_flops.value()},
          {"efficiency", s.cluster.device.efficiency}}}}},
      {"topology", topology},
      {"model", {{"kind", s.model.kind.value}}},
      {"data",
       {{"kind", s.data.kind.value},
        {"samples", s.data.samples},
        {"features", s.data.features},
        {"validation_fraction", s.data.validation_fraction},
        {"label_noise", s.data.label_noise}}},
      {"training",
       {{"batch", {{"per_worker", s.training.batch_per_worker}}},
        {"optimizer", {{"kind", s.training.optimizer.kind.value}, {"learning_rate", s.training.optimizer.learning_rate}}},
        {"sync", {{"strategy", s.training.sync_strategy.value}}},
        {"architecture", architecture},
        {"stop", {{"epochs", s.training.epochs}}},
        {"evaluate_every", s.training.evaluate_every}}},
  };
}

}  // namespace dtsim::scenario
