#pragma once
// Which training samples each worker uses at each iteration.
//
// The training set is cut into one contiguous shard per worker (sizes differ by at most one). An epoch
// is `iterations_per_epoch` iterations, the number of whole batches in the smallest shard; every epoch,
// each worker walks its shard in a fresh order drawn from the stream "data/worker/<rank>/epoch/<e>".

#include <cstdint>
#include <span>
#include <vector>

namespace dtsim::models {

struct Shard {
  std::size_t begin = 0;
  std::size_t end = 0;
  [[nodiscard]] std::size_t size() const { return end - begin; }
};

class BatchSchedule {
 public:
  /// Throws std::invalid_argument when a shard holds fewer samples than one batch.
  BatchSchedule(std::size_t train_samples, int workers, int batch_per_worker, std::uint64_t seed);

  [[nodiscard]] Shard shard(int rank) const;
  [[nodiscard]] std::size_t iterations_per_epoch() const { return iterations_per_epoch_; }
  [[nodiscard]] int batch_per_worker() const { return batch_per_worker_; }
  [[nodiscard]] std::uint64_t seed() const { return seed_; }
  [[nodiscard]] int workers() const { return workers_; }

 private:
  std::size_t train_samples_;
  int workers_;
  int batch_per_worker_;
  std::uint64_t seed_;
  std::size_t iterations_per_epoch_;
};

/// One worker's batches, in order.
class BatchStream {
 public:
  BatchStream(const BatchSchedule& schedule, int rank);

  /// Row indices (into the training set) of the next batch.
  std::span<const std::size_t> next();

 private:
  void start_epoch();

  const BatchSchedule* schedule_;
  int rank_;
  std::int64_t epoch_ = -1;
  std::size_t position_ = 0;
  std::vector<std::size_t> order_;
};

}  // namespace dtsim::models
