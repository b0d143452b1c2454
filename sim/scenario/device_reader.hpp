#pragma once
// The devices of a cluster: `cluster.device`, named profiles (`cluster.devices`, the built-in catalog),
// and which device each worker runs on (node types, `cluster.worker_devices`).

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_view.hpp"
#include "sim/scenario/scenario.hpp"

#include <vector>

namespace dtsim::scenario {

/// `cluster.device`: a named profile refined by the keys written beside the name.
DeviceProfile read_device(const View& cluster, core::DiagnosticSink& sink);

/// The groups of `cluster.nodes` whose type is declared or built in, each with its devices' profile
/// (`cluster.device` unless the type names another).
std::vector<NodeGroup> read_node_groups(const View& cluster, const DeviceProfile& cluster_device,
                                        core::DiagnosticSink& sink);

/// The parameter servers' device: `cluster.servers.device`, or `cluster_device`.
DeviceProfile read_server_device(const View& cluster, const DeviceProfile& cluster_device, core::DiagnosticSink& sink);

/// Per worker rank, the device it runs on: its node's (workers fill `nodes` in order), then
/// `cluster.worker_devices` where it names the rank, else `cluster_device`.
std::vector<DeviceProfile> read_worker_devices(const View& cluster, int workers, const DeviceProfile& cluster_device,
                                               const std::vector<NodeGroup>& nodes, core::DiagnosticSink& sink);

}  // namespace dtsim::scenario
