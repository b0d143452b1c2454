#include "sim/comm/hierarchical_allreduce.hpp"

#include "sim/comm/group_transport.hpp"
#include "sim/comm/ring_collectives.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

namespace dtsim::comm {

void HierarchicalAllreduce::run(Transport& transport, Block data) const {
  const int p = transport.size();
  if (p == 1) return;
  const std::span<const int> machines = transport.machines();
  // Ranks of each machine, in rank order; machines in order of their first rank.
  std::map<int, std::vector<int>> by_machine;
  std::vector<int> machine_order;
  for (int r = 0; r < p; ++r) {
    const int machine = machines.empty() ? r : machines[static_cast<std::size_t>(r)];
    if (by_machine.find(machine) == by_machine.end()) machine_order.push_back(machine);
    by_machine[machine].push_back(r);
  }
  const std::size_t per_machine = by_machine.begin()->second.size();
  for (const auto& [machine, ranks] : by_machine) {
    if (ranks.size() != per_machine) {
      throw std::invalid_argument(fmt::format("hierarchical allreduce needs the same number of ranks on every machine; "
                                              "machine {} has {}, another {}", machine, ranks.size(), per_machine));
    }
  }
  const int rank = transport.rank();
  const std::vector<int>& mine = by_machine[machines.empty() ? rank : machines[static_cast<std::size_t>(rank)]];
  const auto local_index = static_cast<std::size_t>(std::find(mine.begin(), mine.end(), rank) - mine.begin());
  std::vector<int> peers;  // the ranks with this local index, one per machine
  for (const int machine : machine_order) peers.push_back(by_machine[machine][local_index]);

  GroupTransport local(transport, mine);
  GroupTransport across(transport, peers);
  const int k = static_cast<int>(per_machine);
  ring_reduce_scatter(local, data, -1);
  const Block own_chunk = chunk_of(data, k, static_cast<int>(local_index));
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
