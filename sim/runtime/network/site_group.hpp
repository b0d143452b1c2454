#pragma once
// The workers of one site (a datacenter of the `sites` topology), as a collective group of their own: what a
// hierarchical strategy averages over every step between its steps across the sites.

#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/runtime/setup/training_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace dtsim::runtime {

struct SiteGroup {
  int site = 0;
  int index = 0;           ///< the rank's place among its site's ranks
  std::vector<int> ranks;  ///< the site's ranks, ascending: the group's hosts

  SiteGroup(const TrainingSetup& setup, int rank) {
    const std::span<const int> sites = setup.graph.worker_sites();
    site = sites[static_cast<std::size_t>(rank)];
    for (std::size_t r = 0; r < sites.size(); ++r) {
      if (sites[r] == site) ranks.push_back(static_cast<int>(r));
    }
    index = static_cast<int>(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin());
  }

  /// The group for S4uTransport: "site<N>", this rank's place, the site's ranks as its hosts. Valid while this
  /// SiteGroup lives.
  [[nodiscard]] GroupSpec spec() const {
    return {.name = fmt::format("site{}", site), .rank = index, .size = static_cast<int>(ranks.size()), .hosts = ranks};
  }
};

/// A worker's site and the transport its gradients are averaged over every inner step (hierarchical DiLoCo).
struct SiteMembers {
  SiteGroup group;
  S4uTransport transport;
  SiteMembers(const TrainingSetup& setup, const RunNetwork& network, int rank, const Meter& meter)
      : group(setup, rank), transport(network, group.spec(), meter) {}
};

}  // namespace dtsim::runtime
