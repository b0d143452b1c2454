#pragma once

#include "topologies/topology_plugin.hpp"
#include "sim/topology/topology_graph.hpp"

namespace dtsim::topologies {

/// A k-ary three-tier fat tree (Al-Fares, Loukissas and Vahdat, SIGCOMM 2008), built of k-port switches:
/// k pods, each of k/2 edge switches (k/2 hosts each) and k/2 aggregation switches, every edge linked to
/// every aggregation switch of its pod; (k/2)^2 core switches, core j linked to aggregation switch j / (k/2)
/// of every pod. k^3/4 hosts at most; workers fill them in order (worker i under edge i / (k/2), in pod
/// i / (k^2/4)), and only the pods and edges they need are built (one edge needs no aggregation, one pod no
/// core). With `oversubscription` o, a pod has ceil(k / 2o) aggregation switches and the core ceil(k / 2o) x
/// k/2 switches, and an edge switch's uplink capacity is its hosts' capacity over o exactly (1 = full
/// bisection): each uplink carries the edge's port capacity / (o x aggregations), the link's bandwidth where
/// o divides k/2 and less where it does not; an aggregation switch's core links carry what its edges bring
/// it. A port counts `port_nics[rank]` links (TopologyContext::port_nics; one past its end), a partly filled
/// edge's free ports as its used ones. Routes spread over the aggregation and core switches as equal-cost
/// multipath routing does (sim/topology/routing.hpp).
///
/// Hops between hosts: 2 under one edge switch, 4 within a pod, 6 across pods. Bisection bandwidth (full
/// pods): hosts / 2 x the link bandwidth / o.
topology::TopologyGraph build_k_ary_fat_tree(int workers, int k, double oversubscription, const LinkSpec& link,
                                             std::span<const int> port_nics = {});

/// The smallest even k, from `at_least` (rounded up to even) on, whose k^3/4 ports hold `hosts`: the hint
/// for a fat tree too small.
std::int64_t smallest_radix(std::int64_t hosts, std::int64_t at_least);

}  // namespace dtsim::topologies
