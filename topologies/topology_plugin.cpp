#include "topologies/topology_plugin.hpp"

namespace dtsim::topologies {

LinkSpec read_link(const core::View& link) {
  return LinkSpec{*link.quantity("bandwidth", core::parse_bandwidth), *link.quantity("latency", core::parse_duration)};
}

core::SchemaNode link_schema(std::string key, std::string description) {
  using core::quantity;
  return core::map_of(std::move(key), std::move(description),
                      {
                          quantity("bandwidth", core::Unit::Bandwidth, "bandwidth of each direction")
                              .require()
                              .exclusive_min()
                              .for_example("\"10Gbps\""),
                          quantity("latency", core::Unit::Duration, "one-way latency").require().for_example("\"5us\""),
                          core::choice_of("sharing", "link sharing", "how flows crossing the link share it",
                                          {{"shared", "each direction is shared fairly by the flows crossing it"},
                                           {"fatpipe", "every flow gets the full bandwidth (a non-blocking switch)", true}})
                              .fallback("shared"),
                      });
}

core::SchemaNode arity_parameter() {
  return core::integer("arity", 2, 64,
                       "children per switch (tree), workers per leaf switch (fat_tree); for hierarchical, the fabric's")
      .fallback("2");
}

core::SchemaNode oversubscription_parameter() {
  return core::number("oversubscription", 1.0, 64.0, "a leaf's downlink capacity over its uplink capacity").fallback("1");
}

core::SchemaNode radix_parameter() {
  return core::integer("k", 2, 256, "ports per switch of a k-ary fat tree (even): k pods, k^3/4 hosts at most")
      .fallback("4");
}

core::SchemaNode server_link_parameter() {
  return link_schema("server_link", "link from the switch to each server; defaults to `link`");
}

topology::TopologyGraph build_topology(const TopologyRegistry& registry, const std::string& kind,
                                       const core::View& section, const TopologyContext& context) {
  TopologyContext with_registry = context;
  with_registry.registry = &registry;
  return registry.find(kind).factory.make(section, with_registry);
}

}  // namespace dtsim::topologies
