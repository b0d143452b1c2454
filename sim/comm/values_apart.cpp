#include "sim/comm/values_apart.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dtsim::comm {

ValueMeeting::ValueMeeting(int ranks) : next_call_(static_cast<std::size_t>(ranks), 0) {}

std::int64_t ValueMeeting::enter(int rank, std::span<float> block) {
  const std::int64_t call = next_call_.at(static_cast<std::size_t>(rank))++;
  Call& at = calls_[call];
  if (at.blocks.empty()) at.blocks.resize(next_call_.size());
  at.blocks[static_cast<std::size_t>(rank)] = block;
  ++at.entered;
  return call;
}

void ValueMeeting::leave(std::int64_t call, const CollectiveAlgorithm& algorithm, std::span<const int> machines) {
  const auto found = calls_.find(call);
  if (found == calls_.end()) throw std::logic_error("a rank left a collective it never entered");
  Call& at = found->second;
  if (at.left == 0) {
    if (at.entered != ranks()) {
      throw std::logic_error(fmt::format("a rank came out of a collective computed apart before all {} ranks went in ({})",
                                         ranks(), at.entered));
    }
    algorithm.values_in_memory(GroupBlocks{at.blocks, machines});
  }
  if (++at.left == ranks()) calls_.erase(found);
}

ValueMeeting& ValueMeetings::of(const std::string& name, int ranks) {
  std::unique_ptr<ValueMeeting>& meeting = meetings_[name];
  if (!meeting) meeting = std::make_unique<ValueMeeting>(ranks);
  if (meeting->ranks() != ranks) {
    throw std::logic_error(fmt::format("group '{}' met with {} ranks and then {}", name, meeting->ranks(), ranks));
  }
  return *meeting;
}

bool computes_values_apart(const CollectiveAlgorithm& algorithm, Transport& transport, const Block& data) {
  switch (algorithm.operation()) {
    case Operation::allreduce:
    case Operation::reduce_scatter:
    case Operation::allgather:
    case Operation::all_to_all: break;
    case Operation::broadcast:
    case Operation::reduce: return false;
  }
  return data.has_values() && transport.size() > 1 && transport.value_meeting() != nullptr &&
         algorithm.computes_values_in_memory();
}

void run_collective(const CollectiveAlgorithm& algorithm, Transport& transport, Block data) {
  if (!computes_values_apart(algorithm, transport, data)) {
    algorithm.run(transport, data);
    return;
  }
  ValueMeeting& meeting = *transport.value_meeting();
  const std::int64_t call = meeting.enter(transport.rank(), data.values());
  algorithm.run(transport, Block::sized(data.size()));
  meeting.leave(call, algorithm, transport.machines());
}

void run_collective_timed_as(const CollectiveAlgorithm& algorithm, Transport& transport, Block data,
                             std::size_t wire_elements) {
  if (!computes_values_apart(algorithm, transport, data)) {
    algorithm.run(transport, data);
    return;
  }
  ValueMeeting& meeting = *transport.value_meeting();
  const std::int64_t call = meeting.enter(transport.rank(), data.values());
  algorithm.run(transport, Block::sized(wire_elements));
  meeting.leave(call, algorithm, transport.machines());
}

}  // namespace dtsim::comm
