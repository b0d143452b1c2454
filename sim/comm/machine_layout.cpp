#include "sim/comm/machine_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <stdexcept>

namespace dtsim::comm {
namespace {

MachineLayout layout_of(std::span<const int> machines, int ranks, std::string_view algorithm) {
  // Ranks of each machine, in rank order; machines in order of their first rank.
  std::map<int, std::size_t> position;
  std::vector<std::vector<int>> by_machine;
  MachineLayout out;
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
      throw std::invalid_argument(fmt::format("{} needs the same number of ranks on every machine; machine {} has {}, "
                                              "another {}",
                                              algorithm, machine, by_machine[at].size(), per_machine));
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
  return out;
}

}  // namespace

std::shared_ptr<const MachineLayout> MachineLayouts::layout(std::span<const int> machines, int ranks,
                                                           std::string_view algorithm) const {
  const auto key = std::pair{machines.data(), ranks};
  const std::lock_guard lock(mutex_);
  if (const auto found = cached_.find(key);
      found != cached_.end() &&
      std::equal(machines.begin(), machines.end(), found->second.machines.begin(), found->second.machines.end())) {
    return found->second.layout;
  }
  auto shared = std::make_shared<const MachineLayout>(layout_of(machines, ranks, algorithm));
  cached_[key] = Cached{std::vector<int>(machines.begin(), machines.end()), shared};
  return shared;
}

const std::shared_ptr<const MachineLayout>& MachineLayouts::of(Transport& transport, std::string_view algorithm) const {
  using Shared = std::shared_ptr<const MachineLayout>;
  std::any& scratch = transport.placement_scratch();
  if (std::any_cast<Shared>(&scratch) == nullptr) scratch = layout(transport.machines(), transport.size(), algorithm);
  return *std::any_cast<Shared>(&scratch);
}

}  // namespace dtsim::comm
