#include "models/partitioning.hpp"

#include "sim/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dtsim::models {

std::vector<std::size_t> partition_order(const Dataset& train, const BatchSchedule& schedule, Partitioning kind,
                                         double alpha, std::uint64_t seed) {
  const std::size_t n = train.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const auto label_of = [&](std::size_t row) { return static_cast<std::size_t>(train.labels[static_cast<Eigen::Index>(row)]); };
  if (kind == Partitioning::Iid) return order;
  if (kind == Partitioning::ByLabel) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return label_of(a) < label_of(b); });
    return order;
  }
  if (!(alpha > 0.0)) throw std::invalid_argument("dirichlet partitioning needs alpha > 0");
  const std::size_t classes = train.classes;
  std::vector<std::vector<std::size_t>> pools(classes);
  for (std::size_t row = 0; row < n; ++row) pools.at(label_of(row)).push_back(row);
  std::vector<std::size_t> taken(classes, 0);
  core::RandomEngine engine = core::random_stream(seed, "data/partitioning/dirichlet");
  order.clear();
  for (int worker = 0; worker < schedule.workers(); ++worker) {
    const std::size_t size = schedule.shard(worker).size();
    const std::vector<double> shares = core::dirichlet(classes, alpha, engine);
    std::size_t filled = 0;
    const auto take = [&](std::size_t c, std::size_t count) {
      count = std::min({count, pools[c].size() - taken[c], size - filled});
      order.insert(order.end(), pools[c].begin() + static_cast<std::ptrdiff_t>(taken[c]),
                   pools[c].begin() + static_cast<std::ptrdiff_t>(taken[c] + count));
      taken[c] += count;
      filled += count;
    };
    for (std::size_t c = 0; c < classes; ++c) take(c, static_cast<std::size_t>(std::llround(shares[c] * static_cast<double>(size))));
    while (filled < size) {
      std::size_t fullest = 0;
      for (std::size_t c = 1; c < classes; ++c) {
        if (pools[c].size() - taken[c] > pools[fullest].size() - taken[fullest]) fullest = c;
      }
      take(fullest, size - filled);
    }
  }
  return order;
}

void reorder(Dataset& data, const std::vector<std::size_t>& order) {
  if (order.size() != data.size()) throw std::invalid_argument("reorder: not a permutation of the rows");
  const std::vector<Eigen::Index> index(order.begin(), order.end());
  data.features = FeatureMatrix(data.features(index, Eigen::all));
  data.labels = Eigen::VectorXf(data.labels(index));
}

}  // namespace dtsim::models
