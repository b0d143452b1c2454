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
  Buffer mean = buffers.front();
  for (std::size_t b = 1; b < buffers.size(); ++b) {
    if (buffers[b].size() != mean.size()) throw std::invalid_argument("mean of buffers of different sizes");
    for (std::size_t i = 0; i < mean.size(); ++i) mean[i] += buffers[b][i];
  }
  const float scale = 1.0F / static_cast<float>(buffers.size());
  for (float& value : mean) value *= scale;
  return mean;
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
