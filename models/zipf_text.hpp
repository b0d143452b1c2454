#pragma once
// Seeded synthetic text whose word frequencies follow Zipf's law, with topics so that words co-occur.

#include "models/text_corpus.hpp"

#include <cstdint>

namespace dtsim::models {

struct ZipfTextParams {
  std::size_t words = 0;       ///< tokens generated
  std::size_t vocabulary = 0;  ///< distinct words, named w0, w1, ... by Zipf rank
  std::size_t topics = 8;
  double exponent = 1.0;       ///< Zipf exponent s: P(rank r) proportional to 1 / r^s
};

/// Sentences of 8 to 16 words. Each sentence draws a topic uniformly; each of its words is, with probability
/// 1/2, a Zipf draw over the whole vocabulary, else a Zipf draw over the words of its topic (the ids equal to
/// the topic modulo `topics`, by rank). Words of one topic therefore co-occur more often than chance. Every
/// number comes from the stream "data/zipf_text" of `seed`.
TokenizedText make_zipf_text(const ZipfTextParams& params, std::uint64_t seed);

}  // namespace dtsim::models
