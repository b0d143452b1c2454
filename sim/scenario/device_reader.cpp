#include "sim/scenario/device_reader.hpp"

#include "sim/core/name_match.hpp"
#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/node_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace dtsim::scenario {
namespace {

void overlay_device(const View& fields, DeviceProfile& out, bool with_defaults) {
  if (auto v = fields.quantity("peak_flops", core::parse_flops)) out.peak_flops = *v;
  if (auto v = fields.quantity("half_flops", core::parse_flops)) out.half_flops = *v;
  if (auto v = fields.quantity("fp8_flops", core::parse_flops)) out.fp8_flops = *v;
  if (auto v = fields.quantity("fp4_flops", core::parse_flops)) out.fp4_flops = *v;
  if (with_defaults || fields.written("precision")) {
    out.precision = value_named(compute_precisions(), fields.filled_text("precision"));
  }
  const View classes = fields.at("efficiencies");
  if (fields.written("efficiency")) {
    // One declared efficiency is the whole device's: it replaces the catalog's figures by class.
    out.efficiency = *fields.number("efficiency");
    out.class_efficiency = {};
    out.efficiency_assumed = false;
  } else if (with_defaults) {
    // The classes not given below take the documented default, which the run notes.
    out.efficiency = kAssumedEfficiency;
    out.efficiency_assumed = true;
  }
  for (std::size_t op = 0; op < models::kOpClasses; ++op) {
    if (auto v = classes.number(std::string(models::kOpClassKeys[op]))) out.class_efficiency[op] = *v;
  }
  if (auto v = fields.quantity("memory_bandwidth", core::parse_bandwidth)) out.memory_bandwidth = *v;
  if (auto v = fields.quantity("layer_overhead", core::parse_duration)) out.layer_overhead_s = v->value();
  if (auto v = fields.quantity("memory", core::parse_size)) out.memory = *v;
  if (auto v = fields.integer("multiprocessors")) out.multiprocessors = static_cast<int>(*v);
  if (auto v = fields.quantity("idle_power", core::parse_power)) out.idle_power = *v;
  if (auto v = fields.quantity("busy_power", core::parse_power)) out.busy_power = *v;
  if (auto v = fields.quantity("communication_power", core::parse_power)) out.communication_power = *v;
}

std::vector<std::string> known_devices(const View& cluster) {
  std::vector<std::string> known = builtin_device_names();
  if (const ConfigNode* devices = cluster.at("devices").node()) {
    for (const auto& entry : devices->entries) {
      if (std::find(known.begin(), known.end(), entry.key) == known.end()) known.push_back(entry.key);
    }
  }
  return known;
}

/// A profile by name: the built-in one, refined by a `cluster.devices` entry of the same name, or the
/// entry alone. Nothing when neither exists.
std::optional<DeviceProfile> named_device(const View& cluster, const std::string& name) {
  const View declared = cluster.at("devices").at(name);
  std::optional<DeviceProfile> out = find_builtin_device(name);
  if (out) {
    if (declared.node() != nullptr) overlay_device(declared, *out, false);
    return out;
  }
  if (declared.node() == nullptr) return std::nullopt;
  out.emplace();
  out->name = name;
  overlay_device(declared, *out, true);
  return out;
}

std::string unknown_device_hint(const View& cluster, const std::string& name) {
  const std::vector<std::string> known = known_devices(cluster);
  std::string hint = fmt::format("known devices: {}", core::join_names(known));
  if (const auto closest = core::closest_name(name, known)) hint = fmt::format("did you mean '{}'? {}", *closest, hint);
  return hint;
}

/// A device named by a node type or a worker_devices entry: must exist, with a peak.
DeviceProfile resolve_device(const View& cluster, const std::string& name, const core::SourcePosition& where,
                             const std::string& path, core::DiagnosticSink& sink) {
  std::optional<DeviceProfile> out = named_device(cluster, name);
  if (!out) {
    sink.error(where, path, fmt::format("unknown device '{}'", name),
               unknown_device_hint(cluster, name) + "; or declare it under cluster.devices");
    DeviceProfile placeholder;
    placeholder.name = name;
    return placeholder;
  }
  return *out;
}

/// The peak key a device lacks for `precision`, if any: 16-bit products need half_flops (under the FP8 and
/// FP4 recipes too, for attention and the products they keep in 16 bits), FP8 ones fp8_flops, FP4 ones
/// fp4_flops; MXFP8's block scales are applied by the tensor cores of the generation that brought FP4
/// (Blackwell, CDNA4), so it asks for fp4_flops as the mark of that generation.
std::optional<std::string_view> missing_peak(const DeviceProfile& device) {
  const ComputePrecision p = device.precision;
  if (!reduced(p)) return std::nullopt;
  if (p == ComputePrecision::nvfp4 && !device.fp4_flops) return "fp4_flops";
  if (p == ComputePrecision::mxfp8 && !device.fp4_generation()) return "fp4_flops";
  if (quantized(p) && p != ComputePrecision::nvfp4 && !device.fp8_flops) return "fp8_flops";
  if (!device.half_flops) return "half_flops";
  return std::nullopt;
}

std::string missing_peak_message(const DeviceProfile& device, std::string_view key) {
  if (device.precision == ComputePrecision::mixed) {
    return fmt::format("mixed precision needs the device's half_flops, and '{}' has none", device.name);
  }
  if (device.precision == ComputePrecision::mxfp8 && key == "fp4_flops") {
    return fmt::format("precision mxfp8 needs tensor cores that apply block scales, those of the generation with FP4 "
                       "(fp4_flops: Blackwell, CDNA4), and '{}' has none",
                       device.name);
  }
  return fmt::format("precision {} needs the device's {}, and '{}' has none", to_string(device.precision), key,
                     device.name);
}

}  // namespace

DeviceProfile read_device(const View& cluster, core::DiagnosticSink& sink) {
  const View device = cluster.at("device");
  DeviceProfile out;
  out.name = device.text("name", "custom");
  std::optional<DeviceProfile> named = named_device(cluster, out.name);
  if (named) {
    out = *named;
  } else if (!device.has("peak_flops")) {
    const bool named_here = device.written("name");
    sink.error(named_here ? device.where("name") : device.where(),
               named_here ? "cluster.device.name" : "cluster.device.peak_flops",
               named_here ? fmt::format("unknown device '{}', and no peak_flops declared", out.name)
                          : "missing required key (the device has no name from the catalog)",
               unknown_device_hint(cluster, out.name) + "; or declare peak_flops");
  }
  // Keys written here refine the named profile (say, a lower efficiency for an a100); a device declared here
  // alone takes the defaults of what it leaves out.
  overlay_device(device, out, !named.has_value());
  if (const auto key = missing_peak(out)) {
    sink.error(device.where("precision"), "cluster.device.precision", missing_peak_message(out, *key),
               *key == "half_flops" ? std::string("declare half_flops, or use precision: fp32")
               : out.precision == ComputePrecision::mxfp8
                   ? std::string("use precision: fp8_blockwise or fp8_current on this device, or declare fp4_flops")
                   : fmt::format("declare {}, or use precision: bf16", *key));
  }
  return out;
}

std::vector<NodeGroup> read_node_groups(const View& cluster, const DeviceProfile& cluster_device,
                                        core::DiagnosticSink& sink) {
  std::vector<NodeGroup> groups;
  const ConfigNode* nodes = cluster.at("nodes").node();
  if (nodes == nullptr) return groups;
  const View types = cluster.at("node_types");
  for (std::size_t i = 0; i < nodes->items.size(); ++i) {
    const View group(&nodes->items[i], fmt::format("cluster.nodes[{}]", i));
    const std::string type = group.text("type");
    const View declared = types.at(type);
    const int count = static_cast<int>(group.filled_integer("count"));
    if (declared.node() == nullptr) {
      const std::optional<CatalogNode> builtin = find_builtin_node(type);
      if (!builtin) continue;  // total_devices() reports it
      // A built-in node's devices follow the cluster's device when it is the same model (keeping its
      // refinements: precision, efficiency, power).
      const DeviceProfile device = builtin->device == cluster_device.name
                                       ? cluster_device
                                       : resolve_device(cluster, builtin->device, group.where("type"),
                                                        group.path() + ".type", sink);
      groups.push_back(
          NodeGroup{type, count, builtin->devices, builtin->intra_link, builtin->intra, device, builtin->nics, builtin->nvls});
      continue;
    }
    if (!declared.has("intra_link")) continue;  // the schema reports it missing
    const std::string device_name = declared.text("device", cluster_device.name);
    const DeviceProfile device = device_name == cluster_device.name
                                     ? cluster_device
                                     : resolve_device(cluster, device_name, declared.where("device"),
                                                      declared.path() + ".device", sink);
    const std::string intra = declared.filled_text("intra");
    groups.push_back(NodeGroup{type, count, static_cast<int>(*declared.integer("devices")),
                               read_link(declared.at("intra_link")),
                               intra == "switch"      ? IntraNode::Switch
                               : intra == "cube_mesh" ? IntraNode::CubeMesh
                                                      : IntraNode::AllToAll,
                               device, static_cast<int>(declared.filled_integer("nics")),
                               declared.filled_flag("nvls")});
    if (groups.back().nvls && groups.back().intra != IntraNode::Switch) {
      sink.error(declared.where("nvls"), declared.path() + ".nvls",
                 fmt::format("a node reduces in its switch only when its devices are joined by one (intra: {})", intra),
                 "set intra: switch, or remove nvls");
    }
  }
  return groups;
}

DeviceProfile read_server_device(const View& cluster, const DeviceProfile& cluster_device, core::DiagnosticSink& sink) {
  const View servers = cluster.at("servers");
  const std::string name = servers.text("device", cluster_device.name);
  if (name == cluster_device.name) return cluster_device;
  return resolve_device(cluster, name, servers.where("device"), "cluster.servers.device", sink);
}

std::vector<DeviceProfile> read_worker_devices(const View& cluster, int workers, const DeviceProfile& cluster_device,
                                               const std::vector<NodeGroup>& nodes, core::DiagnosticSink& sink) {
  std::vector<DeviceProfile> out;
  out.reserve(static_cast<std::size_t>(std::max(workers, 0)));
  for (const NodeGroup& group : nodes) {
    for (int n = 0; n < group.count * group.devices && static_cast<int>(out.size()) < workers; ++n) {
      out.push_back(group.device);
    }
  }
  while (static_cast<int>(out.size()) < workers) out.push_back(cluster_device);
  const ConfigNode* rules = cluster.at("worker_devices").node();
  std::vector<int> assigned_by(out.size(), -1);
  for (std::size_t i = 0; rules != nullptr && i < rules->items.size(); ++i) {
    const View rule(&rules->items[i], fmt::format("cluster.worker_devices[{}]", i));
    const std::string name = rule.text("device");
    DeviceProfile device = name == cluster_device.name
                               ? cluster_device
                               : resolve_device(cluster, name, rule.where("device"), rule.path() + ".device", sink);
    const ConfigNode* ranks = rule.at("workers").node();
    for (std::size_t r = 0; ranks != nullptr && r < ranks->items.size(); ++r) {
      const auto rank = parse_integer(ranks->items[r].scalar).value_or(-1);
      const std::string at = fmt::format("{}.workers[{}]", rule.path(), r);
      if (rank < 0 || rank >= workers) {
        sink.error(ranks->items[r].where, at, fmt::format("worker {} does not exist; ranks run from 0 to {}", rank, workers - 1));
        continue;
      }
      int& previous = assigned_by[static_cast<std::size_t>(rank)];
      if (previous >= 0) {
        sink.error(ranks->items[r].where, at,
                   fmt::format("worker {} already runs on a device from cluster.worker_devices[{}]", rank, previous),
                   "name each worker in one entry");
        continue;
      }
      previous = static_cast<int>(i);
      out[static_cast<std::size_t>(rank)] = device;
    }
  }
  if (!nodes.empty() && rules != nullptr) {
    sink.error(cluster.key_where("worker_devices"), "cluster.worker_devices",
               "with cluster.nodes, each worker runs on its node's devices",
               "give the node types their device (node_types.<type>.device) instead");
  }
  for (std::size_t rank = 0; rank < out.size(); ++rank) {
    // Precision is how the run computes, not a property of one device: every worker follows cluster.device.
    out[rank].precision = cluster_device.precision;
    // cluster.device's own lack is reported by read_device.
    const auto key = missing_peak(out[rank]);
    if (out[rank].name != cluster_device.name && key) {
      sink.error(cluster.key_where(nodes.empty() ? "worker_devices" : "nodes"), "cluster",
                 fmt::format("worker {} runs on '{}' under {} precision, and '{}' has no {}", rank, out[rank].name,
                             to_string(out[rank].precision), out[rank].name, *key),
                 fmt::format("declare its {} under cluster.devices, or use precision: {}", *key,
                             *key == "half_flops" ? "fp32" : "bf16"));
      break;
    }
  }
  return out;
}

}  // namespace dtsim::scenario
