#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// A k-ary tree of switches with the workers as leaves. Workers are grouped k at a time under a level-1
/// switch (worker i under switch i / k), switches k at a time under the level above, up to one root:
///
///              switch-2-0
///             /          |
///      switch-1-0      switch-1-1        (arity 2, 4 workers)
///       /     |          /     |
///  worker-0 worker-1 worker-2 worker-3
///
/// Every link is `link`. A single worker has no switch and no link.
topology::TopologyGraph build_tree(int workers, int arity, const LinkSpec& link);

}  // namespace dtsim::topologies
