#pragma once
// A Transport for tests: one thread per rank, one queue per (from, to) pair, and a log of every message,
// so that collectives can be checked for their results and their message schedule without SimGrid.

#include "sim/comm/transport.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace dtsim::comm::testing {

struct SentMessage {
  int from = 0;
  int to = 0;
  std::size_t elements = 0;
};

class ThreadNetwork {
 public:
  explicit ThreadNetwork(int ranks, std::vector<int> machines = {}) : ranks_(ranks), machines_(std::move(machines)) {}
  [[nodiscard]] std::span<const int> machines() const { return machines_; }
  void post(int from, int to, Buffer data, int tag = 0);
  Buffer take(int from, int to, int tag = 0);
  [[nodiscard]] int ranks() const { return ranks_; }
  /// Every message sent so far, in sending order per rank (order between ranks depends on scheduling).
  [[nodiscard]] std::vector<SentMessage> log() const;

 private:
  struct Queue {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<Buffer> items;
  };
  Queue& queue(int from, int to, int tag);

  int ranks_;
  std::vector<int> machines_;
  std::mutex queues_mutex_;
  std::map<std::tuple<int, int, int>, Queue> queues_;  ///< by (from, to, tag); map nodes never move
  mutable std::mutex log_mutex_;
  std::vector<SentMessage> log_;
};

class ThreadTransport final : public Transport {
 public:
  ThreadTransport(ThreadNetwork& network, int rank) : network_(&network), rank_(rank) {}
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return network_->ranks(); }
  [[nodiscard]] std::span<const int> machines() const override { return network_->machines(); }
  void send(int to, Buffer data) override { network_->post(rank_, to, std::move(data)); }
  Buffer recv(int from) override { return network_->take(from, rank_); }
  Buffer send_recv(int to, Buffer data, int from) override;
  std::vector<Buffer> recv_from_each(std::span<const int> from) override;
  void send_to_each(std::span<const int> to, std::vector<Buffer> data) override;
  std::vector<Buffer> exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) override;
  std::unique_ptr<Pending> post_send(int to, Buffer data, int tag) override;
  std::unique_ptr<Pending> post_recv(int from, int tag) override;

 private:
  ThreadNetwork* network_;
  int rank_;
};

/// Runs `body` on every rank, each in its own thread, and waits for all.
void run_ranks(ThreadNetwork& network, const std::function<void(Transport&)>& body);

}  // namespace dtsim::comm::testing
