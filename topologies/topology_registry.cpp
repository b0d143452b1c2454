#include "topologies/topology_registry.hpp"

#include "topologies/custom.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/hierarchical.hpp"
#include "topologies/mesh.hpp"
#include "topologies/parameter_server.hpp"
#include "topologies/random_regular.hpp"
#include "topologies/ring.hpp"
#include "topologies/torus.hpp"
#include "topologies/tree.hpp"

namespace dtsim::topologies {

void register_builtin_topologies(TopologyRegistry& registry) {
  registry.add("ring", "workers in a cycle of full-duplex links, or of one-way links (bidirectional: false)",
               [](const scenario::Scenario& s) {
                 return build_ring(s.cluster.workers, s.topology.link, s.topology.bidirectional);
               });
  registry.add("parameter_server", "workers and one server per parameter shard around a switch (star)",
               [](const scenario::Scenario& s) {
                 return build_parameter_server(s.cluster.workers, parameter_servers(s), s.topology.link,
                                               s.topology.server_link);
               });
  registry.add("tree", "k-ary tree of switches with workers at the leaves", [](const scenario::Scenario& s) {
    return build_tree(s.cluster.workers, s.topology.arity, s.topology.link);
  });
  registry.add("fat_tree", "two-level leaf-spine fat tree, `arity` workers per leaf, optional oversubscription",
               [](const scenario::Scenario& s) {
                 return build_fat_tree(s.cluster.workers, s.topology.arity, s.topology.oversubscription, s.topology.link);
               });
  registry.add("mesh", "every worker linked to every other",
               [](const scenario::Scenario& s) { return build_mesh(s.cluster.workers, s.topology.link); });
  registry.add("random_regular", "seeded connected random graph, every worker with `degree` links",
               [](const scenario::Scenario& s) {
                 return build_random_regular(s.cluster.workers, s.topology.degree, s.seed, s.topology.link);
               });
  registry.add("torus", "2D or 3D torus, wrapping around in every dimension",
               [](const scenario::Scenario& s) { return build_torus(s.topology.dimensions, s.topology.link); });
  registry.add("hierarchical", "multi-device nodes, all-to-all inside, joined by a fabric through NICs per node or device",
               [](const scenario::Scenario& s) { return build_hierarchical(s); });
  registry.add("custom", "explicit nodes and links",
               [](const scenario::Scenario& s) { return build_custom(s.topology); });
}

}  // namespace dtsim::topologies
