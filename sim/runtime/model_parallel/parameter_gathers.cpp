#include "sim/runtime/model_parallel/parameter_gathers.hpp"

#include "models/gradient_buckets.hpp"

#include <algorithm>

namespace dtsim::runtime {

ParameterGathers::ParameterGathers(const TrainingContext& context, int rank,
                                   const std::vector<const models::ModelProfile*>& chunks,
                                   const std::vector<std::size_t>& order, GatherGroup group)
    : buckets_(chunks.size()) {
  const TrainingSetup& setup = *context.setup;
  const int bytes = context.scenario->training.wire.parameters;
  std::vector<std::size_t> messages;
  for (const std::size_t chunk : order) {
    // The gradient buckets, which the backward pass fills from the last layer, taken from the first: the
    // parameters of the layers a forward pass reaches first are gathered first.
    std::vector<models::GradientBucket> forward = models::gradient_buckets(*chunks[chunk], setup.bucket_bytes, bytes);
    std::reverse(forward.begin(), forward.end());
    for (const models::GradientBucket& bucket : forward) {
      if (bucket.parameters <= 0.0) continue;
      messages.push_back(wire_elements(bucket.parameters, bytes, group.ranks));
      buckets_[chunk].push_back(Bucket{bucket.first, static_cast<std::int64_t>(messages.size())});
    }
  }
  per_step_ = static_cast<std::int64_t>(messages.size());
  stream_.emplace(context, rank, setup.collectives.allgather(), std::move(messages), setup.total_iterations, std::move(group.name),
                  std::move(group.members), group.position, std::move(group.meeting), Traffic::Zero);
}

void ParameterGathers::start_step() {
  base_ = stream_->handed();
  for (std::int64_t i = 0; i < per_step_; ++i) stream_->hand_over();
}

bool ParameterGathers::waits_before(std::size_t chunk, std::size_t layer) const {
  const std::vector<Bucket>& buckets = buckets_[chunk];
  return std::any_of(buckets.begin(), buckets.end(), [&](const Bucket& b) { return b.first == layer; });
}

void ParameterGathers::wait_before(std::size_t chunk, std::size_t layer, const Meter& meter) {
  for (const Bucket& bucket : buckets_[chunk]) {
    if (bucket.first == layer) stream_->wait_for(base_ + bucket.index, meter.carrying(Traffic::Zero));
  }
}

}  // namespace dtsim::runtime
