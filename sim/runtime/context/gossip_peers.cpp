#include "sim/runtime/context/gossip_peers.hpp"

#include "sim/sync/gossip_matching.hpp"

namespace dtsim::runtime {

const std::vector<std::vector<int>>& GossipPeers::neighbours() {
  if (neighbours_.empty()) {
    neighbours_.reserve(static_cast<std::size_t>(workers_));
    for (int r = 0; r < workers_; ++r) neighbours_.push_back(topology::worker_neighbours(*graph_, r));
  }
  return neighbours_;
}

const std::vector<int>& GossipPeers::neighbours_of(int rank) { return neighbours().at(static_cast<std::size_t>(rank)); }

int GossipPeers::partner(int rank, std::int64_t round) {
  auto found = rounds_.find(round);
  if (found == rounds_.end()) found = rounds_.emplace(round, Round{sync::random_matching(neighbours(), seed_, round), 0}).first;
  const int out = found->second.partners.at(static_cast<std::size_t>(rank));
  if (++found->second.asked == workers_) rounds_.erase(found);
  return out;
}

}  // namespace dtsim::runtime
