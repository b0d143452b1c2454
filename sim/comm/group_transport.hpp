#pragma once
// A sub-group of another transport's ranks, renumbered 0..n-1 in the order given, like an MPI
// sub-communicator: collectives run on a group as on any transport (the ranks of one machine, say). Ring
// phases run round by round: the parent's phase shortcut reasons about the whole group, not a subgroup.

#include "sim/comm/transport.hpp"

#include <memory>
#include <vector>

namespace dtsim::comm {

class GroupTransport final : public Transport {
 public:
  /// `members` are ranks of `parent`, including the parent's own rank; `parent` must outlive the group.
  GroupTransport(Transport& parent, std::vector<int> members);
  /// The same over members shared by the group's ranks, the parent's rank being `members[rank]`: no copy
  /// and no search, for groups built at every collective of a large job.
  GroupTransport(Transport& parent, std::shared_ptr<const std::vector<int>> members, int rank);
  /// The same, one of `siblings`: groups of the parent's ranks (this one among them, together every rank of
  /// the parent once) that run their ring phases at the same moments, as the subgroups of a hierarchical
  /// allreduce do. A phase of the group then tells the parent what every one of its ranks sends.
  GroupTransport(Transport& parent, std::shared_ptr<const std::vector<int>> members, int rank,
                 std::shared_ptr<const RingSet::Rings> siblings);

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return static_cast<int>(members_->size()); }
  void send(int to, Buffer data) override;
  Buffer recv(int from) override;
  Buffer send_recv(int to, Buffer data, int from) override;
  std::vector<Buffer> recv_from_each(std::span<const int> from) override;
  void send_to_each(std::span<const int> to, std::vector<Buffer> data) override;
  std::vector<Buffer> exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) override;
  std::unique_ptr<Pending> post_send(int to, Buffer data, int tag) override;
  std::unique_ptr<Pending> post_recv(int from, int tag) override;
  void shift_rounds(int to, int from, std::size_t elements, int rounds) override {
    parent_->group_rounds(parent_rank(to), parent_rank(from), elements, rounds,
                          RingSet{siblings_, false, ((to - rank_) % size() + size()) % size()});
  }
  /// A subgroup's phase, in this group's ranks: the parent is told only this rank's part.
  void group_rounds(int to, int from, std::size_t elements, int rounds, const RingSet& /*phase*/) override {
    parent_->group_rounds(parent_rank(to), parent_rank(from), elements, rounds, RingSet{});
  }
  /// A subgroup's steps are not the parent's (its other ranks do not take them): the messages go one by one.
  [[nodiscard]] bool times_phases_at_once() const override { return parent_->times_phases_at_once(); }
  [[nodiscard]] double now() const override { return parent_->now(); }
  void spend(double seconds) override { parent_->spend(seconds); }
  [[nodiscard]] double latency_to(int peer) const override { return parent_->latency_to(parent_rank(peer)); }

 private:
  [[nodiscard]] int parent_rank(int member) const { return members_->at(static_cast<std::size_t>(member)); }
  [[nodiscard]] std::vector<int> parent_ranks(std::span<const int> members) const;

  Transport* parent_;
  std::shared_ptr<const std::vector<int>> members_;
  int rank_ = -1;
  std::shared_ptr<const RingSet::Rings> siblings_;
};

}  // namespace dtsim::comm
