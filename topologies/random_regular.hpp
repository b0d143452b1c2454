#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

#include <cstdint>

namespace dtsim::topologies {

/// A connected random graph in which every worker has exactly `degree` links (workers x degree even,
/// degree < workers), drawn from the stream "topology/random_regular" of `seed`: the configuration model
/// (every worker offers `degree` link ends, a seeded shuffle pairs them), redrawn until the pairing has no
/// self-link, no double link, and connects every worker. Throws std::runtime_error if no such graph
/// turns up in 1000 draws.
topology::TopologyGraph build_random_regular(int workers, int degree, std::uint64_t seed,
                                             const LinkSpec& link);

}  // namespace dtsim::topologies
