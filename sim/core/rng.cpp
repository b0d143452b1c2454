#include "sim/core/rng.hpp"

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

}  // namespace dtsim::core
