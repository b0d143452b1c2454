#include "sim/comm/group_transport.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace dtsim::comm {

GroupTransport::GroupTransport(Transport& parent, std::vector<int> members)
    : parent_(&parent), members_(std::make_shared<const std::vector<int>>(std::move(members))) {
  const auto own = std::find(members_->begin(), members_->end(), parent.rank());
  if (own == members_->end()) throw std::invalid_argument("a group must include the rank that uses it");
  rank_ = static_cast<int>(own - members_->begin());
}

GroupTransport::GroupTransport(Transport& parent, std::shared_ptr<const std::vector<int>> members, int rank)
    : parent_(&parent), members_(std::move(members)), rank_(rank) {
  if (rank_ < 0 || rank_ >= size() || parent_rank(rank_) != parent.rank()) {
    throw std::invalid_argument("a group must include the rank that uses it");
  }
}

GroupTransport::GroupTransport(Transport& parent, std::shared_ptr<const std::vector<int>> members, int rank,
                               std::shared_ptr<const RingSet::Rings> siblings)
    : GroupTransport(parent, std::move(members), rank) {
  siblings_ = std::move(siblings);
}

std::vector<int> GroupTransport::parent_ranks(std::span<const int> members) const {
  std::vector<int> out;
  out.reserve(members.size());
  for (const int member : members) out.push_back(parent_rank(member));
  return out;
}

void GroupTransport::send(int to, Buffer data) { parent_->send(parent_rank(to), std::move(data)); }

Buffer GroupTransport::recv(int from) { return parent_->recv(parent_rank(from)); }

Buffer GroupTransport::send_recv(int to, Buffer data, int from) {
  return parent_->send_recv(parent_rank(to), std::move(data), parent_rank(from));
}

std::vector<Buffer> GroupTransport::recv_from_each(std::span<const int> from) {
  return parent_->recv_from_each(parent_ranks(from));
}

void GroupTransport::send_to_each(std::span<const int> to, std::vector<Buffer> data) {
  parent_->send_to_each(parent_ranks(to), std::move(data));
}

std::vector<Buffer> GroupTransport::exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) {
  return parent_->exchange(parent_ranks(to), std::move(data), parent_ranks(from));
}

std::unique_ptr<Pending> GroupTransport::post_send(int to, Buffer data, int tag) {
  return parent_->post_send(parent_rank(to), std::move(data), tag);
}

std::unique_ptr<Pending> GroupTransport::post_recv(int from, int tag) { return parent_->post_recv(parent_rank(from), tag); }

}  // namespace dtsim::comm
