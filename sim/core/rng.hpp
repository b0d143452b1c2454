#pragma once
// Seeded random streams. Every consumer draws from its own named stream, derived from the scenario
// seed and a stable name ("data/generate", "worker/3/epoch/2"), so adding a consumer never shifts the
// numbers another one sees. The distributions are ours: the standard ones differ between libraries.

#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace dtsim::core {

using RandomEngine = std::mt19937_64;

/// 64-bit FNV-1a of a name: stable across platforms and runs (unlike std::hash).
std::uint64_t stable_hash(std::string_view text);

/// The generator of the stream called `name` under `seed`.
RandomEngine random_stream(std::uint64_t seed, std::string_view name);

/// Uniform in [0, 1) with 53 random bits.
double uniform01(RandomEngine& engine);
/// Exponential of mean `mean`, by inversion: -mean ln(1 - u).
double exponential(RandomEngine& engine, double mean);
/// Standard normal (Box-Muller).
double standard_normal(RandomEngine& engine);
/// Uniform integer in [0, bound), bound > 0, without modulo bias.
std::uint64_t uniform_index(RandomEngine& engine, std::uint64_t bound);

/// Shares over `count` classes drawn from Dirichlet(alpha, ..., alpha) (gamma draws by Marsaglia and Tsang's
/// method, normalized; all the mass on one class when every draw underflows). alpha > 0.
std::vector<double> dirichlet(std::size_t count, double alpha, RandomEngine& engine);

/// Fisher-Yates shuffle in place.
template <class T>
void shuffle(std::span<T> items, RandomEngine& engine) {
  for (std::size_t i = items.size(); i > 1; --i) {
    const std::size_t j = uniform_index(engine, i);
    std::swap(items[i - 1], items[j]);
  }
}

}  // namespace dtsim::core
