#include "sim/runtime/observe/link_sampler.hpp"

#include "sim/topology/link_traffic.hpp"

namespace dtsim::runtime {

void LinkSampler::on_iteration(std::int64_t /*iteration*/, double at_s, const topology::LinkTraffic& traffic) {
  metrics::LinkSample sample{at_s, {}};
  std::size_t row = 0;
  const auto add = [&](double bytes) {
    if (seen_.size() <= row) seen_.push_back(0.0);
    if (bytes != seen_[row]) sample.bytes.emplace_back(row, bytes - seen_[row]);
    seen_[row++] = bytes;
  };
  // The directions in the order a record's links list them (training_job.cpp's record_links).
  for (std::size_t id = 0; id < graph_->link_count(); ++id) {
    add(traffic.forward(id));
    if (!graph_->link(id).one_way) add(traffic.backward(id));
  }
  if (!sample.bytes.empty()) samples_.push_back(std::move(sample));
}

}  // namespace dtsim::runtime
