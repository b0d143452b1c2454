#include "sim/comm/parameter_server_protocol.hpp"

#include "sim/comm/collective_algorithm.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::comm {

Buffer push_and_pull(Transport& transport, std::span<const int> servers, const Buffer& gradient, std::int64_t steps) {
  const auto shards = static_cast<int>(servers.size());
  std::vector<Buffer> pushed;
  pushed.reserve(servers.size());
  for (int j = 0; j < shards; ++j) {
    const ChunkBounds bounds = chunk_bounds(gradient.size(), shards, j);
    const std::size_t header = steps > 0 ? 1 : 0;
    if (!gradient.has_values()) {
      pushed.push_back(Buffer::sized(bounds.end - bounds.begin + header));
    } else {
      const std::span<const float> values = gradient.values();
      std::vector<float> shard(values.begin() + static_cast<std::ptrdiff_t>(bounds.begin),
                               values.begin() + static_cast<std::ptrdiff_t>(bounds.end));
      if (header > 0) shard.push_back(static_cast<float>(steps));
      pushed.emplace_back(std::move(shard));
    }
  }
  transport.send_to_each(servers, std::move(pushed));
  std::vector<Buffer> pulled = transport.recv_from_each(servers);
  if (!gradient.has_values()) return Buffer::sized(gradient.size());
  std::vector<float> joined;
  joined.reserve(gradient.size());
  for (const Buffer& shard : pulled) joined.insert(joined.end(), shard.values().begin(), shard.values().end());
  if (joined.size() != gradient.size()) throw std::invalid_argument("servers returned shards of the wrong sizes");
  return Buffer(std::move(joined));
}

std::pair<Buffer, std::int64_t> take_steps(const Buffer& message) {
  if (message.size() == 0) throw std::invalid_argument("a push without its step count");
  if (!message.has_values()) return {Buffer::sized(message.size() - 1), 1};
  const std::span<const float> values = message.values();
  return {Buffer(std::vector<float>(values.begin(), values.end() - 1)), static_cast<std::int64_t>(values.back())};
}

void leave(Transport& transport, std::span<const int> servers) {
  transport.send_to_each(servers, std::vector<Buffer>(servers.size()));
}

Buffer mean_of(const std::vector<Buffer>& buffers) {
  if (buffers.empty()) throw std::invalid_argument("mean of no buffers");
  for (const Buffer& buffer : buffers) {
    if (buffer.size() != buffers.front().size()) throw std::invalid_argument("mean of buffers of different sizes");
  }
  if (!buffers.front().has_values()) return Buffer::sized(buffers.front().size());
  std::vector<float> mean(buffers.front().values().begin(), buffers.front().values().end());
  for (std::size_t b = 1; b < buffers.size(); ++b) {
    const std::span<const float> values = buffers[b].values();
    for (std::size_t i = 0; i < mean.size(); ++i) mean[i] += values[i];
  }
  const float scale = 1.0F / static_cast<float>(buffers.size());
  for (float& value : mean) value *= scale;
  return Buffer(std::move(mean));
}

void serve_round(Transport& transport, std::span<const int> workers, const std::function<Buffer(const Buffer&)>& update) {
  const Buffer parameters = update(mean_of(transport.recv_from_each(workers)));
  std::vector<Buffer> replies(workers.size(), parameters);
  transport.send_to_each(workers, std::move(replies));
}

core::Seconds push_time(int workers, core::Bytes size, core::Seconds worker_latency, core::BytesPerSecond worker_bandwidth,
                        core::Seconds server_latency, core::BytesPerSecond server_bandwidth, int shards) {
  const double s = shards;
  const core::BytesPerSecond rate = std::min(worker_bandwidth / s, server_bandwidth / static_cast<double>(workers));
  return worker_latency + server_latency + size / s / rate;
}

}  // namespace dtsim::comm
