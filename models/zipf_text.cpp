#include "models/zipf_text.hpp"

#include "sim/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dtsim::models {
namespace {

/// Cumulative Zipf probabilities over `count` ranks.
std::vector<double> zipf_cdf(std::size_t count, double exponent) {
  std::vector<double> out(count);
  double total = 0.0;
  for (std::size_t r = 0; r < count; ++r) {
    total += 1.0 / std::pow(static_cast<double>(r + 1), exponent);
    out[r] = total;
  }
  for (double& value : out) value /= total;
  return out;
}

std::size_t draw(const std::vector<double>& cdf, core::RandomEngine& engine) {
  const double u = core::uniform01(engine);
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1);
}

}  // namespace

TokenizedText make_zipf_text(const ZipfTextParams& params, std::uint64_t seed) {
  if (params.vocabulary == 0 || params.topics == 0 || params.topics > params.vocabulary || params.words == 0) {
    throw std::invalid_argument("zipf_text: needs words, a vocabulary and 1 to vocabulary topics");
  }
  core::RandomEngine engine = core::random_stream(seed, "data/zipf_text");
  const std::vector<double> global = zipf_cdf(params.vocabulary, params.exponent);
  // Topic t holds ids t, t + topics, t + 2 topics, ...; the smallest topic has vocabulary / topics words.
  const std::vector<double> topical = zipf_cdf(params.vocabulary / params.topics, params.exponent);
  TokenizedText out;
  for (std::size_t id = 0; id < params.vocabulary; ++id) out.words.push_back("w" + std::to_string(id));
  std::size_t left = params.words;
  while (left > 0) {
    const std::size_t length = std::min(left, 8 + core::uniform_index(engine, 9));
    const std::size_t topic = core::uniform_index(engine, params.topics);
    std::vector<std::uint32_t> sentence(length);
    for (std::uint32_t& word : sentence) {
      word = static_cast<std::uint32_t>(core::uniform01(engine) < 0.5 ? draw(global, engine)
                                                                      : topic + draw(topical, engine) * params.topics);
    }
    out.sentences.push_back(std::move(sentence));
    left -= length;
  }
  return out;
}

}  // namespace dtsim::models
