#include "thread_transport.hpp"

#include <thread>

namespace dtsim::comm::testing {

ThreadNetwork::ThreadNetwork(int ranks) : ranks_(ranks), queues_(static_cast<std::size_t>(ranks * ranks)) {}

void ThreadNetwork::post(int from, int to, Buffer data) {
  {
    const std::lock_guard lock(log_mutex_);
    log_.push_back({from, to, data.size()});
  }
  Queue& queue = queues_[static_cast<std::size_t>(from * ranks_ + to)];
  {
    const std::lock_guard lock(queue.mutex);
    queue.items.push_back(std::move(data));
  }
  queue.ready.notify_one();
}

Buffer ThreadNetwork::take(int from, int to) {
  Queue& queue = queues_[static_cast<std::size_t>(from * ranks_ + to)];
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
