#include "sim/comm/parameter_server_protocol.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::comm {

Buffer push_and_pull(Transport& transport, int server, Buffer gradient) {
  transport.send(server, std::move(gradient));
  return transport.recv(server);
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
                        core::Seconds server_latency, core::BytesPerSecond server_bandwidth) {
  const core::BytesPerSecond rate = std::min(worker_bandwidth, server_bandwidth / static_cast<double>(workers));
  return worker_latency + server_latency + size / rate;
}

}  // namespace dtsim::comm
