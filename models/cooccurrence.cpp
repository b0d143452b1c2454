#include "models/cooccurrence.hpp"

#include "sim/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace dtsim::models {

SplitDataset make_cooccurrence(const TokenizedText& text, std::size_t window, double validation_fraction,
                               std::uint64_t seed) {
  const std::uint64_t words = text.words.size();
  if (window == 0 || words == 0 || words >= (std::uint64_t{1} << 24U)) {
    throw std::invalid_argument("co-occurrence: needs a window of at least 1 and 1 to 2^24 words");
  }
  std::unordered_map<std::uint64_t, double> counts;
  for (const std::vector<std::uint32_t>& sentence : text.sentences) {
    for (std::size_t a = 0; a < sentence.size(); ++a) {
      for (std::size_t b = a + 1; b < sentence.size() && b - a <= window; ++b) {
        const double weight = 1.0 / static_cast<double>(b - a);
        counts[sentence[a] * words + sentence[b]] += weight;
        counts[sentence[b] * words + sentence[a]] += weight;
      }
    }
  }
  // The hash map's order is not portable; sorted keys are, and the seeded shuffle then decides the order.
  std::vector<std::pair<std::uint64_t, double>> entries(counts.begin(), counts.end());
  std::sort(entries.begin(), entries.end());
  core::RandomEngine engine = core::random_stream(seed, "data/cooccurrence");
  core::shuffle(std::span(entries), engine);

  const auto validation =
      held_out(entries.size(), validation_fraction);
  const std::size_t train = entries.size() - validation;
  SplitDataset out;
  for (Dataset* part : {&out.train, &out.validation}) {
    const std::size_t count = part == &out.train ? train : validation;
    part->features.resize(static_cast<Eigen::Index>(count), 2);
    part->labels.resize(static_cast<Eigen::Index>(count));
    part->classes = 0;
  }
  for (std::size_t k = 0; k < entries.size(); ++k) {
    Dataset& part = k < train ? out.train : out.validation;
    const auto row = static_cast<Eigen::Index>(k < train ? k : k - train);
    part.features(row, 0) = static_cast<float>(entries[k].first / words);
    part.features(row, 1) = static_cast<float>(entries[k].first % words);
    part.labels[row] = static_cast<float>(entries[k].second);
  }
  return out;
}

}  // namespace dtsim::models
