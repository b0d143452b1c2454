#include "models/expert_routing.hpp"

#include "sim/core/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dtsim::models {

RoutingDraw::RoutingDraw(std::vector<double> shares, std::optional<double> capacity_factor)
    : shares_(std::move(shares)), kept_(shares_) {
  if (!capacity_factor) return;
  const double capacity = *capacity_factor / static_cast<double>(shares_.size());
  for (double& share : kept_) share = std::min(share, capacity);
}

double RoutingDraw::dropped() const {
  if (kept_ == shares_) return 0.0;
  return std::max(0.0, 1.0 - std::accumulate(kept_.begin(), kept_.end(), 0.0));
}

std::vector<double> RoutingDraw::rank_loads(int ranks) const {
  const auto n = static_cast<std::size_t>(ranks);
  if (ranks < 1 || kept_.size() % n != 0) throw std::invalid_argument("the expert group's devices divide the experts");
  const std::size_t each = kept_.size() / n;
  std::vector<double> out(n, 0.0);
  for (std::size_t e = 0; e < kept_.size(); ++e) out[e / each] += kept_[e];
  for (double& load : out) load *= static_cast<double>(ranks);
  return out;
}

RoutingDraw draw_routing(const RoutingSpec& spec, int experts, std::uint64_t seed, const RoutingKey& key) {
  const auto n = static_cast<std::size_t>(experts);
  if (spec.distribution == RoutingDistribution::Uniform) {
    return {std::vector<double>(n, 1.0 / static_cast<double>(experts)), spec.capacity_factor};
  }
  core::RandomEngine engine = core::random_stream(
      seed, fmt::format("routing/{}/{}/{}/{}", key.iteration, key.microbatch, key.block, key.group));
  if (spec.distribution == RoutingDistribution::Dirichlet) {
    return {core::dirichlet(n, spec.alpha, engine), spec.capacity_factor};
  }
  // Zipf: the k-th expert of a shuffled order takes a share proportional to 1/k^s.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  core::shuffle(std::span<std::size_t>(order), engine);
  std::vector<double> shares(n);
  double total = 0.0;
  for (std::size_t k = 0; k < n; ++k) total += (shares[order[k]] = std::pow(static_cast<double>(k + 1), -spec.exponent));
  for (double& share : shares) share /= total;
  return {std::move(shares), spec.capacity_factor};
}

}  // namespace dtsim::models
