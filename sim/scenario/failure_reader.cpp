#include "sim/scenario/failure_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::scenario {
namespace {

/// The catalog's kinds, each replaced by a declared one of its kind (which keeps the catalog's rate when it
/// declares none); then the other declared kinds.
void read_components(const View& failures, FailureSpec& out, core::DiagnosticSink& sink) {
  if (failures.has("catalog")) {
    out.catalog = failures.text("catalog");
    out.components_at = failures.key_where("catalog");
    if (std::optional<FailureCatalog> catalog = find_failure_catalog(*out.catalog)) out.components = catalog->components;
  }
  const View declared = failures.at("components");
  if (declared.node() == nullptr) return;
  if (!out.catalog) out.components_at = failures.key_where("components");
  for (const std::string& kind : component_kinds()) {
    const View rate = declared.at(kind);
    if (rate.node() == nullptr) continue;
    const auto same = std::find_if(out.components.begin(), out.components.end(),
                                   [&](const ComponentFailures& c) { return c.kind == kind; });
    const std::string per = rate.text("per", std::string(to_string(default_unit(kind))));
    ComponentFailures own{kind, 0.0, per == "node" ? ComponentUnit::Node : ComponentUnit::Device, 0.0, "declared"};
    if (auto mtbf = rate.quantity("mtbf", core::parse_duration)) {
      own.mtbf_s = mtbf->value();
    } else if (same != out.components.end()) {
      own.mtbf_s = same->mtbf_s;
      if (!rate.has("per")) own.per = same->per;
      own.source = same->source;
    } else {
      sink.error(declared.key_where(kind), declared.path() + "." + kind + ".mtbf",
                 fmt::format("expected a mean time between failures for {}: no catalog gives one", kind),
                 "declare mtbf (as \"100000h\"), or select a catalog that rates this kind with failures.catalog");
      continue;
    }
    if (auto repair = rate.quantity("repair", core::parse_duration)) own.repair_s = repair->value();
    if (same != out.components.end()) {
      *same = std::move(own);
    } else {
      out.components.push_back(std::move(own));
    }
  }
}

/// A node's failure (kind: node) takes its devices down with it: a failure of each of its workers at once.
void read_node_failure(const View& event, const ClusterSpec& cluster, core::DiagnosticSink& sink, FailureSpec& out) {
  int nodes = 0;
  for (const NodeGroup& group : cluster.nodes) nodes += group.count;
  const std::optional<std::int64_t> node = parse_integer(event.text("target"));
  if (nodes == 0 || !node || *node < 0 || *node >= nodes) {
    sink.error(event.where("target"), event.path() + ".target",
               nodes == 0 ? std::string("a node's failure needs the nodes of cluster.nodes, and this cluster declares none")
                          : fmt::format("expected a node index from 0 to {}, got \"{}\"", nodes - 1, event.text("target")),
               nodes == 0 ? "fail its workers (kind: worker) instead" : "nodes are counted over cluster.nodes in order");
    return;
  }
  WorkerFailure failure{0, event.quantity("at", core::parse_duration)->value(), std::nullopt, event.where("target")};
  if (auto repair = event.quantity("repair_after", core::parse_duration)) failure.repair_s = repair->value();
  // Ranks follow nodes, group by group (topologies/hierarchical.cpp places them so).
  int first = 0;
  int index = 0;
  for (const NodeGroup& group : cluster.nodes) {
    for (int n = 0; n < group.count; ++n, ++index) {
      if (index == *node) {
        for (failure.worker = first; failure.worker < std::min(first + group.devices, cluster.workers); ++failure.worker) {
          out.events.push_back(failure);
        }
        return;
      }
      first += group.devices;
    }
  }
}

/// A link's or a switch's failure (kind: link, switch).
void read_link_failure(const View& event, FailureSpec& out) {
  LinkFailure failure{event.located("target"), event.quantity("at", core::parse_duration)->value(), std::nullopt,
                      event.text("kind") == "switch"};
  if (auto repair = event.quantity("repair_after", core::parse_duration)) failure.repair_s = repair->value();
  out.link_events.push_back(failure);
}

/// A parameter-server shard's failure (kind: server). The shard's range needs the architecture: checked later.
void read_server_failure(const View& event, core::DiagnosticSink& sink, FailureSpec& out) {
  const std::optional<std::int64_t> shard = parse_integer(event.text("target"));
  if (!shard) {
    sink.error(event.where("target"), event.path() + ".target",
               fmt::format("expected a server (shard) index, got \"{}\"", event.text("target")));
    return;
  }
  ServerFailure failure{static_cast<int>(*shard),
                        event.quantity("at", core::parse_duration)->value(), std::nullopt, event.where("target")};
  if (auto repair = event.quantity("repair_after", core::parse_duration)) failure.repair_s = repair->value();
  out.server_events.push_back(failure);
}

/// A worker's failure (kind: worker).
void read_worker_failure(const View& event, FailureSpec& out) {
  WorkerFailure failure;
  failure.worker = static_cast<int>(parse_integer(event.text("target")).value_or(0));
  failure.at_s = event.quantity("at", core::parse_duration)->value();
  if (auto repair = event.quantity("repair_after", core::parse_duration)) failure.repair_s = repair->value();
  failure.where = event.where("target");
  out.events.push_back(failure);
}

/// One item of failures.events, read by its kind.
void read_failure_event(const View& event, const ClusterSpec& cluster, core::DiagnosticSink& sink, FailureSpec& out) {
  if (event.text("kind") == "link" || event.text("kind") == "switch") {
    read_link_failure(event, out);
  } else if (event.text("kind") == "server") {
    read_server_failure(event, sink, out);
  } else if (event.text("kind") == "node") {
    read_node_failure(event, cluster, sink, out);
  } else {
    read_worker_failure(event, out);
  }
}

/// failures.random: failures at a mean time between them, of any worker or of the ranks listed.
void read_random_failures(const View& failures, int workers, core::DiagnosticSink& sink, FailureSpec& out) {
  const View random = failures.at("random");
  if (random.node() == nullptr) return;
  out.mtbf_s = random.quantity("mtbf", core::parse_duration)->value();
  out.random_at = failures.key_where("random");
  if (auto repair = random.quantity("repair_after", core::parse_duration)) out.random_repair_s = repair->value();
  if (const ConfigNode* ranks = random.at("workers").node()) {
    for (std::size_t r = 0; r < ranks->items.size(); ++r) {
      const auto rank = parse_integer(ranks->items[r].scalar).value_or(-1);
      if (rank < 0 || rank >= workers) {
        sink.error(ranks->items[r].where, fmt::format("failures.random.workers[{}]", r),
                   fmt::format("worker {} does not exist; ranks run from 0 to {}", rank, workers - 1));
        continue;
      }
      out.random_workers.push_back(static_cast<int>(rank));
    }
  }
}

/// failures.checkpoint, where given: how often the state is saved, and at what bandwidths.
void read_failure_checkpoint(const View& failures, const View& checkpoint, FailureSpec& out) {
  if (checkpoint.node() == nullptr) return;
  out.checkpoint_every = checkpoint.integer("every");
  out.checkpoint_at = failures.key_where("checkpoint");
  out.storage_bytes_per_s = checkpoint.quantity("storage_bandwidth", core::parse_bandwidth)->value();
  if (auto host = checkpoint.quantity("async_host_bandwidth", core::parse_bandwidth)) {
    out.host_bytes_per_s = host->value();
  }
}

/// The first key given that only a budget's projection reads, so that a simulated run can refuse it there.
void note_failure_projected_key(const View& failures, const View& checkpoint, FailureSpec& out) {
  for (const char* key : {"spares", "shrink", "draws"}) {
    if (!failures.has(key) || !out.projected_key.empty()) continue;
    out.projected_key = key;
    out.projected_at = failures.key_where(key);
  }
  if (out.host_bytes_per_s && out.projected_key.empty()) {
    out.projected_key = "checkpoint.async_host_bandwidth";
    out.projected_at = checkpoint.key_where("async_host_bandwidth");
  }
}

}  // namespace

FailureSpec read_failures(const View& root, const ClusterSpec& cluster, core::DiagnosticSink& sink) {
  FailureSpec out;
  const View failures = root.at("failures");
  if (failures.node() == nullptr) return out;
  out.enabled = true;
  out.where = root.key_where("failures");
  if (const ConfigNode* events = failures.at("events").node()) {
    for (std::size_t i = 0; i < events->items.size(); ++i) {
      const View event(&events->items[i], fmt::format("failures.events[{}]", i));
      read_failure_event(event, cluster, sink, out);
    }
  }
  read_random_failures(failures, cluster.workers, sink, out);
  const View checkpoint = failures.at("checkpoint");
  read_failure_checkpoint(failures, checkpoint, out);
  if (auto restart = failures.quantity("restart_time", core::parse_duration)) out.restart_s = restart->value();
  if (auto detection = failures.quantity("detection_time", core::parse_duration)) out.detection_s = detection->value();
  read_components(failures, out, sink);
  if (auto spares = failures.integer("spares")) out.spares = static_cast<int>(*spares);
  out.shrink = failures.text("shrink", "false") == "true";
  out.shrink_at = failures.where("shrink");
  if (auto draws = failures.integer("draws")) out.draws = static_cast<int>(*draws);
  note_failure_projected_key(failures, checkpoint, out);
  out.elastic = failures.text("elastic", "false") == "true";
  out.elastic_at = failures.where("elastic");
  return out;
}

}  // namespace dtsim::scenario
