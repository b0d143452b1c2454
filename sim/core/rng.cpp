#include "sim/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace dtsim::core {
namespace {

// SplitMix64 finaliser: decorrelates seeds that differ in few bits before they reach the Mersenne Twister.
std::uint64_t mix(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27U)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31U);
}

/// Gamma(shape, 1) by Marsaglia and Tsang's method, from the project's own uniform and normal draws (the
/// standard library's distributions differ between implementations; these give the same numbers everywhere).
double gamma(double shape, RandomEngine& engine) {
  if (shape < 1.0) return gamma(shape + 1.0, engine) * std::pow(uniform01(engine), 1.0 / shape);
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = standard_normal(engine);
    const double v = std::pow(1.0 + c * x, 3.0);
    if (v <= 0.0) continue;
    const double u = uniform01(engine);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

RandomEngine random_stream(std::uint64_t seed, std::string_view name) {
  return RandomEngine(mix(mix(seed) ^ stable_hash(name)));
}

double uniform01(RandomEngine& engine) { return static_cast<double>(engine() >> 11U) * 0x1.0p-53; }

double exponential(RandomEngine& engine, double mean) { return -mean * std::log1p(-uniform01(engine)); }

double standard_normal(RandomEngine& engine) {
  // 1 - u keeps the logarithm's argument in (0, 1].
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform01(engine)));
  return radius * std::cos(2.0 * std::numbers::pi * uniform01(engine));
}

std::uint64_t uniform_index(RandomEngine& engine, std::uint64_t bound) {
  const std::uint64_t limit = RandomEngine::max() - RandomEngine::max() % bound;
  std::uint64_t draw = engine();
  while (draw >= limit) draw = engine();
  return draw % bound;
}

std::vector<double> dirichlet(std::size_t classes, double alpha, RandomEngine& engine) {
  std::vector<double> shares(classes);
  double total = 0.0;
  for (double& share : shares) total += (share = gamma(alpha, engine));
  if (total <= 0.0) {
    // Every draw underflowed (alpha tiny): all the mass on one class.
    std::fill(shares.begin(), shares.end(), 0.0);
    shares[uniform_index(engine, classes)] = 1.0;
    return shares;
  }
  for (double& share : shares) share /= total;
  return shares;
}

}  // namespace dtsim::core
