#include "sim/scenario/scenario_json.hpp"

#include "sim/scenario/node_catalog.hpp"

namespace dtsim::scenario {
namespace {

nlohmann::ordered_json link_json(const LinkSpec& link) {
  return {{"bandwidth_bytes_per_s", link.bandwidth.value()}, {"latency_s", link.latency.value()}};
}

nlohmann::ordered_json device_json(const DeviceProfile& d) {
  nlohmann::ordered_json device = {{"name", d.name}, {"peak_flops_per_s", d.peak_flops.value()}, {"efficiency", d.efficiency}};
  if (d.half_flops) device["half_flops_per_s"] = d.half_flops->value();
  device["precision"] = d.precision;
  if (d.memory_bandwidth) device["memory_bandwidth_bytes_per_s"] = d.memory_bandwidth->value();
  if (d.memory) device["memory_bytes"] = d.memory->value();
  if (d.idle_power) device["idle_power_w"] = d.idle_power->value();
  if (d.busy_power) device["busy_power_w"] = d.busy_power->value();
  return device;
}

nlohmann::ordered_json trace_json(const Trace& trace) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const Trace::Point& p : trace.points) points.push_back({p.at_s, p.factor});
  nlohmann::ordered_json out = {{"points", points}};
  if (trace.period_s) out["period_s"] = *trace.period_s;
  return out;
}

/// Mixed clusters: each other device's profile, and every worker's device by rank; speed traces by rank.
void add_heterogeneity(const ClusterSpec& c, nlohmann::ordered_json& cluster) {
  if (!c.uniform_devices()) {
    nlohmann::ordered_json profiles = nlohmann::ordered_json::object();
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (const DeviceProfile& d : c.worker_devices) {
      names.push_back(d.name);
      if (d.name != c.device.name && !profiles.contains(d.name)) profiles[d.name] = device_json(d);
    }
    cluster["other_devices"] = profiles;
    cluster["worker_devices"] = names;
  }
  nlohmann::ordered_json traces = nlohmann::ordered_json::object();
  for (std::size_t rank = 0; rank < c.speed_traces.size(); ++rank) {
    if (!c.speed_traces[rank].empty()) traces[std::to_string(rank)] = trace_json(c.speed_traces[rank]);
  }
  if (!traces.empty()) cluster["speed_traces"] = traces;
}

nlohmann::ordered_json energy_json(const EnergySpec& e) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (e.carbon_g_per_kwh) out["carbon_g_per_kwh"] = *e.carbon_g_per_kwh;
  if (e.price_per_kwh) out["price_per_kwh"] = *e.price_per_kwh;
  if (e.price_per_device_hour) out["price_per_device_hour"] = *e.price_per_device_hour;
  if (e.price_per_kwh || e.price_per_device_hour) out["currency"] = e.currency;
  if (e.node_static_power) out["node_static_power_w"] = e.node_static_power->value();
  if (e.link_idle_power) out["link_idle_power_w"] = e.link_idle_power->value();
  if (e.link_busy_power) out["link_busy_power_w"] = e.link_busy_power->value();
  return out;
}

nlohmann::ordered_json failures_json(const FailureSpec& f) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const WorkerFailure& e : f.events) {
    nlohmann::ordered_json event = {{"worker", e.worker}, {"at_s", e.at_s}};
    if (e.repair_s) event["repair_s"] = *e.repair_s;
    events.push_back(event);
  }
  nlohmann::ordered_json out = {{"events", events}};
  if (f.mtbf_s) {
    out["random"] = {{"mtbf_s", *f.mtbf_s}, {"workers", f.random_workers}};
    if (f.random_repair_s) out["random"]["repair_s"] = *f.random_repair_s;
  }
  if (f.checkpoint_every) {
    out["checkpoint"] = {{"every", *f.checkpoint_every}, {"storage_bytes_per_s", f.storage_bytes_per_s}};
  }
  out["restart_s"] = f.restart_s;
  out["elastic"] = f.elastic;
  return out;
}

nlohmann::ordered_json model_json(const ModelSpec& m) {
  nlohmann::ordered_json out = {{"kind", m.kind.value}};
  if (m.kind.value == "matrix_factorization" || m.kind.value == "glove") out["dimensions"] = m.dimensions;
  if (m.kind.value == "glove") {
    out["x_max"] = m.x_max;
    out["alpha"] = m.alpha;
  }
  return out;
}

nlohmann::ordered_json data_json(const DataSpec& d) {
  nlohmann::ordered_json out = {{"kind", d.kind.value}};
  if (d.kind.value != "kjv" && d.kind.value != "text") out["samples"] = d.samples;
  if (d.kind.value == "low_rank_ratings") {
    out["users"] = d.users;
    out["items"] = d.items;
    out["rank"] = d.rank;
    out["noise"] = d.noise;
  } else if (d.kind.value == "kjv" || d.kind.value == "text" || d.kind.value == "zipf_text") {
    out["vocabulary"] = d.vocabulary;
    out["window"] = d.window;
  } else {
    out["features"] = d.features;
  }
  out["validation_fraction"] = d.validation_fraction;
  out["partitioning"] = {{"kind", d.partitioning}};
  if (d.partitioning == "dirichlet") out["partitioning"]["alpha"] = d.alpha;
  if (d.kind.value == "synthetic_classification") out["label_noise"] = d.label_noise;
  if (d.kind.value == "gaussian_blobs") out["classes"] = d.classes;
  if (d.kind.value == "sparse_clicks") out["active"] = d.active;
  return out;
}

nlohmann::ordered_json optimizer_json(const OptimizerSpec& o) {
  nlohmann::ordered_json out = {{"kind", o.kind.value}, {"learning_rate", o.learning_rate}};
  for (const auto& [key, value] : o.parameters.values()) out[key] = value.text;
  return out;
}

/// The strategy and the settings that apply to it.
nlohmann::ordered_json sync_json(const TrainingSpec& t) {
  nlohmann::ordered_json out = {{"strategy", t.sync_strategy.value}};
  for (const auto& [key, value] : t.sync_parameters.values()) out[key] = value.text;
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const Scenario& scenario) {
  const auto& s = scenario;
  nlohmann::ordered_json topology = {{"kind", s.topology.kind.value},
                                     {"network_model", std::string(to_string(s.topology.network_model))},
                                     {"link", link_json(s.topology.link)}};
  const bool hierarchical = s.topology.kind.value == "hierarchical";
  if (s.topology.kind.value == "ring") topology["bidirectional"] = s.topology.bidirectional;
  if (hierarchical) {
    topology["fabric"] = s.topology.fabric;
    topology["nic"] = s.topology.nic_per_device ? "per_device" : "per_node";
  }
  if (s.topology.kind.value == "parameter_server" || (hierarchical && s.topology.fabric == "parameter_server")) {
    topology["server_link"] = link_json(s.topology.server_link);
  }
  nlohmann::ordered_json architecture = {{"kind", std::string(to_string(s.training.architecture))}};
  if (has_allreduce(s.training.architecture)) architecture["algorithm"] = s.training.allreduce_algorithm.value;
  if (has_servers(s.training.architecture)) architecture["shards"] = s.training.shards;
  nlohmann::ordered_json stop = nlohmann::ordered_json::object();
  if (s.training.epochs) stop["epochs"] = *s.training.epochs;
  if (s.training.iterations) stop["iterations"] = *s.training.iterations;
  nlohmann::ordered_json cluster = {{"workers", s.cluster.workers}, {"device", device_json(s.cluster.device)}};
  add_heterogeneity(s.cluster, cluster);
  if (!s.cluster.nodes.empty()) {
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (const NodeGroup& group : s.cluster.nodes) {
      nodes.push_back({{"type", group.type},
                       {"count", group.count},
                       {"devices", group.devices},
                       {"intra", std::string(to_string(group.intra))},
                       {"intra_link", link_json(group.intra_link)}});
    }
    cluster["nodes"] = nodes;
  }
  nlohmann::ordered_json out = {
      {"name", s.name},
      {"description", s.description},
      {"sweep_point", s.sweep_point},
      {"source", s.source.generic_string()},
      {"seed", s.seed},
      {"cluster", cluster},
      {"topology", topology},
      {"model", model_json(s.model)},
      {"data", data_json(s.data)},
      {"training",
       {{"backend", std::string(to_string(s.training.backend))},
        {"batch", {{"per_worker", s.training.batch_per_worker}}},
        {"optimizer", optimizer_json(s.training.optimizer)},
        {"sync", sync_json(s.training)},
        {"architecture", architecture},
        {"stop", stop},
        {"evaluate_every", s.training.evaluate_every}}},
  };
  // Workers slower than their device, by rank.
  nlohmann::ordered_json stragglers = nlohmann::ordered_json::array();
  for (std::size_t rank = 0; rank < s.cluster.slowdown.size(); ++rank) {
    if (s.cluster.slowdown[rank] != 1.0) stragglers.push_back({{"worker", rank}, {"slowdown", s.cluster.slowdown[rank]}});
  }
  if (!stragglers.empty()) out["stragglers"] = stragglers;
  nlohmann::ordered_json random = nlohmann::ordered_json::array();
  for (const RandomSlowdown& rule : s.cluster.random_slowdowns) {
    nlohmann::ordered_json entry = {{"distribution", rule.distribution}};
    if (!rule.workers.empty()) entry["workers"] = rule.workers;
    if (rule.cluster_wide) entry["scope"] = "cluster";
    for (const auto& [key, value] : rule.parameters.values()) entry[key] = value.text;
    random.push_back(entry);
  }
  if (!random.empty()) out["random_stragglers"] = random;
  if (!s.link_traces.empty()) {
    nlohmann::ordered_json traces = nlohmann::ordered_json::array();
    for (const LinkTrace& rule : s.link_traces) {
      nlohmann::ordered_json links = nlohmann::ordered_json::array();
      for (const auto& name : rule.links) links.push_back(name.value);
      traces.push_back({{"links", links}, {"trace", trace_json(rule.trace)}});
    }
    out["link_traces"] = traces;
  }
  if (!s.background_traffic.empty()) {
    nlohmann::ordered_json flows = nlohmann::ordered_json::array();
    for (const BackgroundTraffic& rule : s.background_traffic) {
      nlohmann::ordered_json links = nlohmann::ordered_json::array();
      for (const auto& name : rule.links) links.push_back(name.value);
      flows.push_back({{"links", links}, {"rate_bytes_per_s", rule.bytes_per_s}});
    }
    out["background_traffic"] = flows;
  }
  if (s.failures.enabled) out["failures"] = failures_json(s.failures);
  if (s.energy.enabled) out["energy"] = energy_json(s.energy);
  return out;
}

}  // namespace dtsim::scenario
