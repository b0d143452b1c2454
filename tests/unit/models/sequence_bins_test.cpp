#include "models/sequence_bins.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace dtsim::models {
namespace {

ModelProfile bert(std::size_t sequence, std::vector<double> bins = {}) {
  return find_profile("bert_large_pretraining", {.sequence = sequence, .attention = AttentionKernel::Unfused,
                                                 .sequence_bins = std::move(bins)});
}

TEST(SequenceBins, EverySampleInTheLastBinIsTheUnbinnedTable) {
  const ModelProfile plain = bert(512);
  const ModelProfile binned = bert(512, {0, 0, 0, 5});
  ASSERT_EQ(binned.layers.size(), plain.layers.size());
  for (std::size_t j = 0; j < plain.layers.size(); ++j) {
    EXPECT_DOUBLE_EQ(binned.layers[j].forward_flops, plain.layers[j].forward_flops) << plain.layers[j].name;
    EXPECT_DOUBLE_EQ(binned.layers[j].backward_traffic, plain.layers[j].backward_traffic) << plain.layers[j].name;
    EXPECT_DOUBLE_EQ(binned.layers[j].activation_peak_ratio, 1.0) << plain.layers[j].name;
  }
  EXPECT_DOUBLE_EQ(binned.parameters(), plain.parameters());
}

// Two equal bins of 256 and 512 tokens cost, layer by layer, the mean of the two tables; the parameters stay
// the model's and memory is the longest batch's.
TEST(SequenceBins, TheTableIsTheBinsMeanWeightedByTheirShares) {
  const ModelProfile half = bert(256);
  const ModelProfile whole = bert(512);
  const ModelProfile binned = bert(512, {1, 3});
  for (std::size_t j = 0; j < whole.layers.size(); ++j) {
    const auto mean = [&](double LayerProfile::*field) {
      return 0.25 * half.layers[j].*field + 0.75 * whole.layers[j].*field;
    };
    EXPECT_DOUBLE_EQ(binned.layers[j].forward_flops, mean(&LayerProfile::forward_flops)) << whole.layers[j].name;
    EXPECT_DOUBLE_EQ(binned.layers[j].backward_flops, mean(&LayerProfile::backward_flops));
    EXPECT_DOUBLE_EQ(binned.layers[j].forward_traffic, mean(&LayerProfile::forward_traffic));
    EXPECT_DOUBLE_EQ(binned.layers[j].activation_bytes, mean(&LayerProfile::activation_bytes));
    EXPECT_DOUBLE_EQ(binned.layers[j].tensor_sum_elements, mean(&LayerProfile::tensor_sum_elements));
  }
  EXPECT_DOUBLE_EQ(binned.parameters(), whole.parameters());
  EXPECT_NEAR(binned.peak_activation_bytes(), whole.activation_bytes(), 1e-9 * whole.activation_bytes());
  EXPECT_LT(binned.activation_bytes(), whole.activation_bytes());
  EXPECT_GT(binned.activation_bytes(), half.activation_bytes());
}

// Graphcore's published histogram of BERT's Wikipedia pre-training sequences at 512 (graphcore/tutorials
// @e9dbe48, blogs_code/packedBERT/histograms.py) summed into 64-token bins: batches padded to their bin's
// longest are 279.2 tokens long on average (their mean unpadded length is 255.8).
TEST(SequenceBins, MeanPaddedLengthOfWikipediaIn64TokenBins) {
  const std::vector<double> wikipedia{2863079, 3150804, 1855542, 1349565, 1050206, 859509, 722518, 4428329};
  EXPECT_NEAR(mean_padded_length(512, wikipedia), 279.209, 1e-3);
  EXPECT_DOUBLE_EQ(mean_padded_length(512, {1}), 512.0);
}

TEST(SequenceBins, BinsThatDoNotDivideTheSequenceOrWeighNothingAreRefused) {
  EXPECT_THROW(static_cast<void>(bert(512, {1, 1, 1})), ProfileError);
  EXPECT_THROW(static_cast<void>(bert(512, {0, 0})), ProfileError);
  EXPECT_THROW(static_cast<void>(find_profile("llama3_405b", {.sequence = 131072, .attention = AttentionKernel::Fused,
                                                                .sequence_bins = std::vector<double>(2048, 1.0)})),
               ProfileError);
  try {
    static_cast<void>(bert(128, {1, 1, 1}));
    FAIL() << "three bins of 128 tokens";
  } catch (const ProfileError& error) {
    EXPECT_EQ(error.key(), "sequence_bins");
  }
}

}  // namespace
}  // namespace dtsim::models
