#include "sim/comm/hierarchical_allreduce.hpp"

#include "sim/comm/group_transport.hpp"
#include "sim/comm/ring_collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <map>
#include <stdexcept>

namespace dtsim::comm {

std::shared_ptr<const HierarchicalAllreduce::Layout> HierarchicalAllreduce::layout(std::span<const int> machines,
                                                                                  int ranks) const {
  const auto key = std::pair{machines.data(), ranks};
  const std::lock_guard lock(layouts_mutex_);
  if (const auto found = layouts_.find(key);
      found != layouts_.end() && std::equal(machines.begin(), machines.end(), found->second.machines.begin(),
                                            found->second.machines.end())) {
    return found->second.layout;
  }
  // Ranks of each machine, in rank order; machines in order of their first rank.
  std::map<int, std::size_t> position;
  std::vector<std::vector<int>> by_machine;
  Layout out;
  for (int r = 0; r < ranks; ++r) {
    const int machine = machines.empty() ? r : machines[static_cast<std::size_t>(r)];
    const auto [at, added] = position.emplace(machine, by_machine.size());
    if (added) by_machine.emplace_back();
    out.machine_of.push_back(static_cast<int>(at->second));
    out.local_index.push_back(static_cast<int>(by_machine[at->second].size()));
    by_machine[at->second].push_back(r);
  }
  const std::size_t per_machine = by_machine.front().size();
  for (const auto& [machine, at] : position) {
    if (by_machine[at].size() != per_machine) {
      throw std::invalid_argument(fmt::format("hierarchical allreduce needs the same number of ranks on every machine; "
                                              "machine {} has {}, another {}", machine, by_machine[at].size(), per_machine));
    }
  }
  for (std::size_t l = 0; l < per_machine; ++l) {
    std::vector<int> peers;  // the ranks with local index l, one per machine
    for (const auto& ranks_of_machine : by_machine) peers.push_back(ranks_of_machine[l]);
    out.peers.push_back(std::make_shared<const std::vector<int>>(std::move(peers)));
  }
  for (auto& ranks_of_machine : by_machine) {
    out.machine_ranks.push_back(std::make_shared<const std::vector<int>>(std::move(ranks_of_machine)));
  }
  auto shared = std::make_shared<const Layout>(std::move(out));
  layouts_[key] = CachedLayout{std::vector<int>(machines.begin(), machines.end()), shared};
  return shared;
}

void HierarchicalAllreduce::run(Transport& transport, Block data) const {
  const int p = transport.size();
  if (p == 1) return;
  using Shared = std::shared_ptr<const Layout>;
  std::any& scratch = transport.placement_scratch();
  if (std::any_cast<Shared>(&scratch) == nullptr) scratch = layout(transport.machines(), p);
  const Shared& shared = *std::any_cast<Shared>(&scratch);
  const Layout& placement = *shared;
  const auto rank = static_cast<std::size_t>(transport.rank());
  const auto machine = static_cast<std::size_t>(placement.machine_of[rank]);
  const int local_index = placement.local_index[rank];
  // Every machine's ring runs at once, then every local index's: each group names all of them as siblings,
  // so that a transport may time a phase for every rank.
  GroupTransport local(transport, placement.machine_ranks[machine], local_index,
                       std::shared_ptr<const RingSet::Rings>(shared, &placement.machine_ranks));
  GroupTransport across(transport, placement.peers[static_cast<std::size_t>(local_index)], static_cast<int>(machine),
                        std::shared_ptr<const RingSet::Rings>(shared, &placement.peers));
  const int k = static_cast<int>(placement.machine_ranks[machine]->size());
  ring_reduce_scatter(local, data, -1);
  const Block own_chunk = chunk_of(data, k, local_index);
  ring_reduce_scatter(across, own_chunk, 0);
  ring_allgather(across, own_chunk, 1);
  ring_allgather(local, data, 0);
}

core::Seconds HierarchicalAllreduce::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return ring_allreduce_time(ranks, size, cost.alpha, cost.bandwidth);
}

core::Seconds hierarchical_allreduce_time(int per_machine, int machines, core::Bytes size, const AlphaBeta& intra,
                                          const AlphaBeta& inter) {
  const double k = per_machine;
  const double n = machines;
  const core::Seconds inside = (intra.alpha + size / (intra.bandwidth * k)) * (2.0 * (k - 1.0));
  const core::Seconds across = (inter.alpha + size / (inter.bandwidth * (k * n))) * (2.0 * (n - 1.0));
  return inside + across;
}

}  // namespace dtsim::comm
