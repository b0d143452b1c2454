#include "sim/comm/hierarchical_allreduce.hpp"

#include "sim/comm/group_transport.hpp"
#include "sim/comm/ring_collectives.hpp"

namespace dtsim::comm {

void HierarchicalAllreduce::run(Transport& transport, Block data) const {
  const int p = transport.size();
  if (p == 1) return;
  const std::shared_ptr<const MachineLayout>& shared = layouts_.of(transport, "hierarchical allreduce");
  const MachineLayout& placement = *shared;
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

void HierarchicalAllreduce::values_in_memory(const GroupBlocks& group) const {
  const auto p = static_cast<int>(group.blocks.size());
  if (p == 1) return;
  const std::shared_ptr<const MachineLayout> placement = layouts_.of(group.machines, p, "hierarchical allreduce");
  const auto blocks_of = [&](const std::vector<int>& ranks, auto part) {
    std::vector<std::span<float>> out;
    out.reserve(ranks.size());
    for (const int r : ranks) out.push_back(part(r));
    return out;
  };
  const auto whole = [&](int r) { return group.blocks[static_cast<std::size_t>(r)]; };
  const int k = static_cast<int>(placement->machine_ranks.front()->size());
  // The phases of run() in turn, each machine's (or each local index's) group at a time.
  for (const auto& machine : placement->machine_ranks) ring_reduce_scatter_values(blocks_of(*machine, whole), -1);
  for (int local = 0; local < k; ++local) {
    const auto own_chunk = [&](int r) {
      const ChunkBounds bounds = chunk_bounds(whole(r).size(), k, local);
      return whole(r).subspan(bounds.begin, bounds.end - bounds.begin);
    };
    const std::vector<std::span<float>> chunks = blocks_of(*placement->peers[static_cast<std::size_t>(local)], own_chunk);
    ring_reduce_scatter_values(chunks, 0);
    ring_allgather_values(chunks, 1);
  }
  for (const auto& machine : placement->machine_ranks) ring_allgather_values(blocks_of(*machine, whole), 0);
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
