#include "models/expert_routing.hpp"

#include "sim/core/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dtsim::models {
namespace {

/// `shares` (summing to 1) with none above `cap` (cap x their count >= 1): the largest m cut to `cap`, the
/// others scaled alike to fill the rest, 1 - m x cap (evenly when they are all 0), m the fewest that leaves
/// none of the others above `cap`. Cutting the largest and handing the excess around in proportion until
/// nothing is left over gives the same; the sorted scan takes O(E log E) where rounds could take O(E^2).
std::vector<double> capped(std::vector<double> shares, double cap) {
  if (*std::max_element(shares.begin(), shares.end()) <= cap) return shares;
  const std::size_t n = shares.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Equal shares are cut together or not at all, so the order among them changes nothing.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return shares[a] > shares[b]; });
  std::vector<double> below(n + 1, 0.0);  // below[m]: the sum of all but the m largest, smallest added first
  for (std::size_t j = n; j-- > 0;) below[j] = below[j + 1] + shares[order[j]];
  std::size_t m = 0;
  const auto left = [&](std::size_t cut) { return 1.0 - static_cast<double>(cut) * cap; };
  // The m-th largest is cut too while, scaled with the ones below it to fill what the cut ones leave, it
  // would still exceed the cap; each cut raises the scale of the rest, so the first that fits ends the scan.
  while (m < n && below[m] > 0.0 && shares[order[m]] * left(m) > cap * below[m]) ++m;
  for (std::size_t j = 0; j < n; ++j) {
    double& share = shares[order[j]];
    if (j < m) {
      share = cap;
    } else if (below[m] > 0.0) {
      share = std::min(cap, share * left(m) / below[m]);
    } else {
      share = std::min(cap, left(m) / static_cast<double>(n - m));
    }
  }
  return shares;
}

}  // namespace

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

double RoutingDraw::busiest_load(int ranks) const {
  const std::vector<double> loads = rank_loads(ranks);
  // The mean load is the kept share itself: summed directly, not as 1 - dropped(), whose cancellation turns a
  // small kept share into 0 and the ratio into a division by nothing.
  const double mean = std::accumulate(kept_.begin(), kept_.end(), 0.0);
  return mean > 0.0 ? *std::max_element(loads.begin(), loads.end()) / mean : 1.0;
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

RoutingDraw draw_routing(const RoutingSpec& spec, int experts, int top_k, std::uint64_t seed, const RoutingKey& key) {
  if (top_k < 1 || top_k > experts) throw std::invalid_argument("a token goes to 1 to all of the experts");
  const auto n = static_cast<std::size_t>(experts);
  if (spec.distribution == RoutingDistribution::Uniform) {
    return {std::vector<double>(n, 1.0 / static_cast<double>(experts)), spec.capacity_factor};
  }
  // A token's top_k copies go to distinct experts, so an expert receives at most 1/top_k of them.
  const double cap = 1.0 / static_cast<double>(top_k);
  core::RandomEngine engine = core::random_stream(
      seed, fmt::format("routing/{}/{}/{}/{}", key.iteration, key.microbatch, key.block, key.group));
  if (spec.distribution == RoutingDistribution::Dirichlet) {
    return {capped(core::dirichlet(n, spec.alpha, engine), cap), spec.capacity_factor};
  }
  // Zipf: the k-th expert of a shuffled order takes a share proportional to 1/k^s.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  core::shuffle(std::span<std::size_t>(order), engine);
  std::vector<double> shares(n);
  double total = 0.0;
  for (std::size_t k = 0; k < n; ++k) total += (shares[order[k]] = std::pow(static_cast<double>(k + 1), -spec.exponent));
  for (double& share : shares) share /= total;
  return {capped(std::move(shares), cap), spec.capacity_factor};
}

}  // namespace dtsim::models
