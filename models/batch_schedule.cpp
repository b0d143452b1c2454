#include "models/batch_schedule.hpp"

#include "sim/core/rng.hpp"

#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

namespace dtsim::models {

BatchSchedule::BatchSchedule(std::size_t train_samples, int workers, int batch_per_worker, std::uint64_t seed)
    : train_samples_(train_samples), workers_(workers), batch_per_worker_(batch_per_worker), seed_(seed) {
  if (workers < 1 || batch_per_worker < 1) throw std::invalid_argument("batch schedule: workers and batch must be >= 1");
  const std::size_t smallest = train_samples / static_cast<std::size_t>(workers);
  iterations_per_epoch_ = smallest / static_cast<std::size_t>(batch_per_worker);
  if (iterations_per_epoch_ == 0) {
    throw std::invalid_argument(fmt::format(
        "{} training samples over {} workers leave {} per worker, fewer than one batch of {}", train_samples, workers,
        smallest, batch_per_worker));
  }
}

Shard BatchSchedule::shard(int rank) const {
  const auto p = static_cast<std::size_t>(workers_);
  const auto r = static_cast<std::size_t>(rank);
  return Shard{train_samples_ * r / p, train_samples_ * (r + 1) / p};
}

BatchStream::BatchStream(const BatchSchedule& schedule, int rank) : schedule_(&schedule), rank_(rank) {}

void BatchStream::start_epoch() {
  ++epoch_;
  const Shard shard = schedule_->shard(rank_);
  order_.resize(shard.size());
  std::iota(order_.begin(), order_.end(), shard.begin);
  core::RandomEngine engine = core::random_stream(schedule_->seed(), fmt::format("data/worker/{}/epoch/{}", rank_, epoch_));
  core::shuffle(std::span<std::size_t>(order_), engine);
  position_ = 0;
}

std::span<const std::size_t> BatchStream::next() {
  const auto batch = static_cast<std::size_t>(schedule_->batch_per_worker());
  if (epoch_ < 0 || position_ == schedule_->iterations_per_epoch()) start_epoch();
  const std::span<const std::size_t> out(order_.data() + position_ * batch, batch);
  ++position_;
  return out;
}

}  // namespace dtsim::models
