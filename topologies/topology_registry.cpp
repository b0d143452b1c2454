#include "topologies/topology_registry.hpp"

#include "topologies/parameter_server.hpp"
#include "topologies/ring.hpp"

namespace dtsim::topologies {

void register_builtin_topologies(TopologyRegistry& registry) {
  registry.add("ring", "workers in a cycle of full-duplex links",
               [](const scenario::ClusterSpec& cluster, const scenario::TopologySpec& spec) {
                 return build_ring(cluster.workers, spec.link);
               });
  registry.add("parameter_server", "workers and one server around a switch (star)",
               [](const scenario::ClusterSpec& cluster, const scenario::TopologySpec& spec) {
                 return build_parameter_server(cluster.workers, 1, spec.link, spec.server_link);
               });
}

}  // namespace dtsim::topologies
