#pragma once
// How data-parallel training groups gradients for overlapped allreduces (PyTorch DDP, Li et al. 2020):
// parameters packed into buckets in the order the backward pass produces their gradients (last layer
// first), each bucket closed once it holds the cap; a bucket's allreduce starts when its last gradient is
// computed.

#include "models/model_profile.hpp"

#include <cstddef>
#include <vector>

namespace dtsim::models {

struct GradientBucket {
  std::size_t first = 0;    ///< the earliest layer: the bucket is ready once its backward pass is done
  std::size_t end = 0;      ///< one past the latest layer
  double parameters = 0.0;  ///< zero for layers without parameters before the first layer that has some
};

/// The buckets of `profile`, in the order they become ready, covering every layer once (from the last to
/// the first). A bucket closes when it holds at least `bucket_bytes` at `bytes_per_value`; a layer larger
/// than that is a bucket of its own. Throws std::invalid_argument for a cap or value size of zero or less.
std::vector<GradientBucket> gradient_buckets(const ModelProfile& profile, double bucket_bytes, int bytes_per_value);

}  // namespace dtsim::models
