#pragma once
// Word co-occurrence counts, the data GloVe trains on.

#include "models/dataset.hpp"
#include "models/text_corpus.hpp"

#include <cstdint>

namespace dtsim::models {

/// X(i, j): over every pair of words i, j at most `window` apart in one sentence, the sum of 1 / distance,
/// counted both ways (X is symmetric). One sample per non-zero X(i, j): features [i, j] (word ids, exact in
/// float below 2^24), label X(i, j). Samples are shuffled by the stream "data/cooccurrence" of `seed`, then
/// the last validation_fraction of them (rounded) validate.
SplitDataset make_cooccurrence(const TokenizedText& text, std::size_t window, double validation_fraction,
                               std::uint64_t seed);

}  // namespace dtsim::models
