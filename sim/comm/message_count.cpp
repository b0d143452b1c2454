#include "sim/comm/message_count.hpp"

#include <stdexcept>
#include <utility>

namespace dtsim::comm {
namespace {

/// A posted message already complete: a receive hands back a message of `size` elements.
class Posted final : public Pending {
 public:
  explicit Posted(std::size_t size) : size_(size) {}
  Buffer wait() override { return Buffer::sized(size_); }

 private:
  std::size_t size_;
};

class CountingTransport final : public Transport {
 public:
  CountingTransport(int rank, int size, std::span<const int> machines, std::size_t elements)
      : rank_(rank), size_(size), machines_(machines), last_(elements) {}

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] std::span<const int> machines() const override { return machines_; }

  void send(int /*to*/, Buffer data) override { sent(data.size(), 1); }
  Buffer recv(int /*from*/) override { return Buffer::sized(last_); }
  Buffer send_recv(int /*to*/, Buffer data, int /*from*/) override {
    sent(data.size(), 1);
    return Buffer::sized(data.size());
  }
  std::vector<Buffer> recv_from_each(std::span<const int> from) override {
    return std::vector<Buffer>(from.size(), Buffer::sized(last_));
  }
  void send_to_each(std::span<const int> to, std::vector<Buffer> data) override {
    sent(data.empty() ? last_ : data.front().size(), static_cast<std::int64_t>(to.size()));
  }
  std::vector<Buffer> exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) override {
    std::vector<Buffer> out;
    out.reserve(from.size());
    for (std::size_t i = 0; i < from.size(); ++i) out.push_back(Buffer::sized(i < data.size() ? data[i].size() : last_));
    sent(data.empty() ? last_ : data.front().size(), static_cast<std::int64_t>(to.size()));
    return out;
  }
  std::unique_ptr<Pending> post_send(int /*to*/, Buffer data, int /*tag*/) override {
    sent(data.size(), 1);
    return std::make_unique<Posted>(0);
  }
  std::unique_ptr<Pending> post_recv(int /*from*/, int /*tag*/) override { return std::make_unique<Posted>(last_); }
  void shift_rounds(int to, int /*from*/, std::size_t elements, int rounds) override {
    last_ = elements;
    counted_.phases.push_back({((to - rank_) % size_ + size_) % size_, rounds});
  }

  [[nodiscard]] RankMessages take() { return std::move(counted_); }

 private:
  void sent(std::size_t elements, std::int64_t messages) {
    last_ = elements;
    counted_.messages += messages;
  }

  int rank_;
  int size_;
  std::span<const int> machines_;
  /// The size of the last message sent: a receive's guess (the whole block before anything is sent).
  std::size_t last_;
  RankMessages counted_;
};

}  // namespace

std::optional<RankMessages> count_rank_messages(const CollectiveAlgorithm& algorithm, int rank, int size,
                                               std::span<const int> machines, std::size_t elements) {
  CountingTransport transport(rank, size, machines, elements);
  try {
    algorithm.run(transport, Block::sized(elements));
  } catch (const std::invalid_argument&) {
    // A receive whose size the count guessed wrong (Block::add): the algorithm's steps are not symmetric.
    return std::nullopt;
  }
  return transport.take();
}

}  // namespace dtsim::comm
