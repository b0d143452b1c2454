#include "thread_transport.hpp"

#include <thread>

namespace dtsim::comm::testing {

namespace {

/// Queues never block a sender, so a posted send is complete at once.
class PostedSend final : public Pending {
 public:
  Buffer wait() override { return {}; }
};

}  // namespace

class PostedRecv final : public Pending {
 public:
  PostedRecv(ThreadNetwork& network, int from, int to, int tag) : network_(&network), from_(from), to_(to), tag_(tag) {}
  Buffer wait() override { return network_->take(from_, to_, tag_); }

 private:
  ThreadNetwork* network_;
  int from_;
  int to_;
  int tag_;
};

namespace {

}  // namespace

ThreadNetwork::Queue& ThreadNetwork::queue(int from, int to, int tag) {
  const std::lock_guard lock(queues_mutex_);
  return queues_[{from, to, tag}];
}

void ThreadNetwork::post(int from, int to, Buffer data, int tag) {
  {
    const std::lock_guard lock(log_mutex_);
    log_.push_back({from, to, data.size()});
  }
  Queue& queue = this->queue(from, to, tag);
  {
    const std::lock_guard lock(queue.mutex);
    queue.items.push_back(std::move(data));
  }
  queue.ready.notify_one();
}

Buffer ThreadNetwork::take(int from, int to, int tag) {
  Queue& queue = this->queue(from, to, tag);
  std::unique_lock lock(queue.mutex);
  queue.ready.wait(lock, [&] { return !queue.items.empty(); });
  Buffer out = std::move(queue.items.front());
  queue.items.pop_front();
  return out;
}

std::vector<SentMessage> ThreadNetwork::log() const {
  const std::lock_guard lock(log_mutex_);
  return log_;
}

Buffer ThreadTransport::send_recv(int to, Buffer data, int from) {
  send(to, std::move(data));
  return recv(from);
}

std::vector<Buffer> ThreadTransport::recv_from_each(std::span<const int> from) {
  std::vector<Buffer> out;
  for (const int peer : from) out.push_back(recv(peer));
  return out;
}

void ThreadTransport::send_to_each(std::span<const int> to, std::vector<Buffer> data) {
  for (std::size_t i = 0; i < to.size(); ++i) send(to[i], std::move(data[i]));
}

std::vector<Buffer> ThreadTransport::exchange(std::span<const int> to, std::vector<Buffer> data, std::span<const int> from) {
  // Queues never block a sender, so posting everything first cannot deadlock.
  send_to_each(to, std::move(data));
  return recv_from_each(from);
}

std::unique_ptr<Pending> ThreadTransport::post_send(int to, Buffer data, int tag) {
  network_->post(rank_, to, std::move(data), tag);
  return std::make_unique<PostedSend>();
}

std::unique_ptr<Pending> ThreadTransport::post_recv(int from, int tag) {
  return std::make_unique<PostedRecv>(*network_, from, rank_, tag);
}

void run_ranks(ThreadNetwork& network, const std::function<void(Transport&)>& body) {
  std::vector<std::thread> threads;
  for (int rank = 0; rank < network.ranks(); ++rank) {
    threads.emplace_back([&network, &body, rank] {
      ThreadTransport transport(network, rank);
      body(transport);
    });
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace dtsim::comm::testing
