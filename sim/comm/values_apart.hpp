#pragma once
// A collective's values computed apart from its timing. Where the ranks of a group run a collective on real
// values, each leaves its block at the group's ValueMeeting and runs the collective without values, which the
// run's network times as it times a timing-only run's (SimGrid round by round or by the phase shortcut, or the
// analytical network); the first rank to come out computes every rank's values in memory
// (CollectiveAlgorithm::values_in_memory: the same additions in the same order as the messages make them) into
// every rank's block. Values and simulated times are those of the message-by-message run, without a message per
// value: a ring allreduce of p ranks costs O(p n) additions instead of 2p(p-1) simulated messages.
//
// Only operations whose every rank's result depends on every rank's block (allreduce, reduce-scatter, allgather,
// all-to-all) are computed apart: no rank can come out of one before every rank has gone in, so every block is
// there, unchanged, when the first rank out computes. A reduce or a broadcast lets ranks leave early and keeps
// its messages.

#include "sim/comm/collective_algorithm.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace dtsim::comm {

/// Where the ranks of one group meet for the collectives they compute apart, call by call (each rank's n-th call
/// meets the others' n-th). SimGrid runs actors one at a time, so it needs no lock.
class ValueMeeting {
 public:
  explicit ValueMeeting(int ranks);

  /// Rank `rank` leaves `block` for its next call; returns the call's number.
  std::int64_t enter(int rank, std::span<float> block);
  /// Rank `rank` comes out of call `call`: the first computes every rank's values with `algorithm`, ranks placed
  /// on `machines`. Throws std::logic_error where a rank has not entered the call yet.
  void leave(std::int64_t call, const CollectiveAlgorithm& algorithm, std::span<const int> machines);

  [[nodiscard]] int ranks() const { return static_cast<int>(next_call_.size()); }

 private:
  struct Call {
    std::vector<std::span<float>> blocks;
    int entered = 0;
    int left = 0;
  };
  std::vector<std::int64_t> next_call_;  ///< by rank
  std::map<std::int64_t, Call> calls_;   ///< those some rank has entered and not every rank has left
};

/// The meetings of a run's groups, by the group's name.
class ValueMeetings {
 public:
  /// The meeting of group `name` of `ranks` ranks; throws std::logic_error where `name` met with another size.
  ValueMeeting& of(const std::string& name, int ranks);

 private:
  std::map<std::string, std::unique_ptr<ValueMeeting>> meetings_;
};

/// Whether a call of `algorithm` on `data` over `transport` computes its values apart: real values, a group of more
/// than one rank with a meeting, an operation every result of which depends on every rank, and an algorithm that
/// computes its values in memory.
[[nodiscard]] bool computes_values_apart(const CollectiveAlgorithm& algorithm, Transport& transport, const Block& data);

/// `algorithm`'s call on `data`, its values computed apart where computes_values_apart() says so, by messages
/// otherwise.
void run_collective(const CollectiveAlgorithm& algorithm, Transport& transport, Block data);

/// `algorithm`'s call on real `data` whose messages are narrower than its 32-bit floats (values rounded to a
/// narrow float before they are sent): timed as a call on `wire_elements` 4-byte elements, its values computed
/// apart; where they cannot be (no meeting: `--values-by-message`), by messages of `data`'s own size.
void run_collective_timed_as(const CollectiveAlgorithm& algorithm, Transport& transport, Block data,
                             std::size_t wire_elements);

/// An algorithm whose calls go through run_collective(): what a run's workers call (runtime::RunCollectives).
class ValuesApart final : public CollectiveAlgorithm {
 public:
  explicit ValuesApart(std::unique_ptr<CollectiveAlgorithm> inner) : inner_(std::move(inner)) {}
  [[nodiscard]] Operation operation() const override { return inner_->operation(); }
  void run(Transport& transport, Block data) const override { run_collective(*inner_, transport, data); }
  [[nodiscard]] bool computes_values_in_memory() const override { return inner_->computes_values_in_memory(); }
  void values_in_memory(const GroupBlocks& group) const override { inner_->values_in_memory(group); }
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override {
    return inner_->predicted_time(ranks, size, cost);
  }
  [[nodiscard]] std::string uncontended_on() const override { return inner_->uncontended_on(); }
  [[nodiscard]] bool names_every_rank() const override { return inner_->names_every_rank(); }

 private:
  std::unique_ptr<CollectiveAlgorithm> inner_;
};

}  // namespace dtsim::comm
