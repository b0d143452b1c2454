#include "models/cooccurrence.hpp"
#include "models/text_corpus.hpp"
#include "models/zipf_text.hpp"
#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace dtsim::models {
namespace {

TEST(TextCorpus, WordsAreLowercasedLetterRunsRankedByFrequency) {
  const TokenizedText text = tokenize("The cat, the DOG.\nthe cat's bowl\n\n", 3, "inline");
  // the x3, cat x2, then bowl/dog/s once each: bowl wins the tie alphabetically.
  ASSERT_EQ(text.words, (std::vector<std::string>{"the", "cat", "bowl"}));
  ASSERT_EQ(text.sentences.size(), 2U);
  EXPECT_EQ(text.sentences[0], (std::vector<std::uint32_t>{0, 1, 0}));
  EXPECT_EQ(text.sentences[1], (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(word_id(text, "cat"), 1);
  EXPECT_EQ(word_id(text, "dog"), -1);
}

TEST(TextCorpus, TheKjvCorpusReadsFromItsGzipFile) {
  const TokenizedText text =
      read_text_corpus(std::filesystem::path(DTSIM_SOURCE_DIR) / "data" / "kjv.txt.gz", 5000);
  EXPECT_EQ(text.words.size(), 5000U);
  EXPECT_EQ(text.words[0], "the");
  EXPECT_EQ(text.words[1], "and");
  EXPECT_GE(word_id(text, "king"), 0);
  EXPECT_GE(word_id(text, "prince"), 0);
  std::size_t tokens = 0;
  for (const auto& sentence : text.sentences) tokens += sentence.size();
  // The README's 789,634 words count "God's" as one; the top 5000 words cover most of them.
  EXPECT_GT(tokens, 700'000U);
  EXPECT_LT(tokens, 830'000U);
  EXPECT_GT(text.sentences.size(), 30'000U);
}

TEST(TextCorpus, AMissingOrEmptyFileIsAnInputErrorNamingIt) {
  try {
    static_cast<void>(read_text_corpus("/nonexistent/corpus.txt", 10));
    FAIL() << "no error";
  } catch (const core::InputError& error) {
    EXPECT_EQ(error.diagnostics().front().where.file, "/nonexistent/corpus.txt");
  }
  EXPECT_THROW(static_cast<void>(tokenize("12 34 !!", 10, "numbers")), core::InputError);
}

TEST(Cooccurrence, CountsEachPairByOneOverItsDistanceBothWays) {
  TokenizedText text;
  text.words = {"a", "b", "c"};
  text.sentences = {{0, 1, 2}, {0, 0}};
  const SplitDataset data = make_cooccurrence(text, 2, 0.0, 1);
  EXPECT_EQ(data.validation.size(), 0U);
  std::map<std::pair<int, int>, float> counts;
  for (Eigen::Index row = 0; row < static_cast<Eigen::Index>(data.train.size()); ++row) {
    counts[{static_cast<int>(data.train.features(row, 0)), static_cast<int>(data.train.features(row, 1))}] =
        data.train.labels[row];
  }
  // a-b and b-c at distance 1, a-c at distance 2 (window 2), a-a twice (once each way) at distance 1.
  const std::map<std::pair<int, int>, float> expected{{{0, 1}, 1.0F}, {{1, 0}, 1.0F}, {{1, 2}, 1.0F},
                                                      {{2, 1}, 1.0F}, {{0, 2}, 0.5F}, {{2, 0}, 0.5F},
                                                      {{0, 0}, 2.0F}};
  EXPECT_EQ(counts, expected);
  // A window of 1 leaves out a-c.
  EXPECT_EQ(make_cooccurrence(text, 1, 0.0, 1).train.size(), 5U);
}

TEST(Cooccurrence, TheSplitIsSeededAndKeepsEveryEntry) {
  const TokenizedText text = make_zipf_text({.words = 5000, .vocabulary = 200}, 3);
  const SplitDataset a = make_cooccurrence(text, 4, 0.25, 9);
  const SplitDataset b = make_cooccurrence(text, 4, 0.25, 9);
  const SplitDataset c = make_cooccurrence(text, 4, 0.25, 10);
  EXPECT_EQ(a.train.features, b.train.features);
  EXPECT_EQ(a.validation.labels, b.validation.labels);
  EXPECT_NE(a.train.features, c.train.features);
  EXPECT_EQ(a.train.size() + a.validation.size(), c.train.size() + c.validation.size());
  EXPECT_NEAR(static_cast<double>(a.validation.size()) / static_cast<double>(a.train.size() + a.validation.size()),
              0.25, 1e-3);
}

TEST(ZipfText, FrequenciesFallAsOneOverRankAndTopicsCooccur) {
  const TokenizedText text = make_zipf_text({.words = 200'000, .vocabulary = 400, .topics = 4}, 7);
  std::vector<double> counts(400, 0.0);
  std::size_t tokens = 0;
  for (const auto& sentence : text.sentences) {
    EXPECT_GE(sentence.size(), 1U);
    EXPECT_LE(sentence.size(), 16U);
    for (const std::uint32_t w : sentence) {
      ++counts[w];
      ++tokens;
    }
  }
  EXPECT_EQ(tokens, 200'000U);
  // Each word's share is half its global Zipf probability plus half its topic's Zipf probability over
  // four topics; the first words are frequent enough to be measured within 3%.
  const auto zipf = [](std::size_t rank, std::size_t count) {
    double total = 0.0;
    for (std::size_t r = 1; r <= count; ++r) total += 1.0 / static_cast<double>(r);
    return 1.0 / (static_cast<double>(rank + 1) * total);
  };
  for (std::size_t w = 0; w < 8; ++w) {
    const double expected = 0.5 * zipf(w, 400) + 0.5 * 0.25 * zipf(w / 4, 100);
    EXPECT_NEAR(counts[w] / 200'000.0, expected, 0.03 * expected) << "w" << w;
  }
  EXPECT_GT(counts[0], 10 * counts[399]);
  // Words of one topic (same id modulo 4) meet more often than words of different topics.
  const SplitDataset pairs = make_cooccurrence(text, 3, 0.0, 1);
  double same = 0.0;
  double different = 0.0;
  for (Eigen::Index row = 0; row < static_cast<Eigen::Index>(pairs.train.size()); ++row) {
    const int i = static_cast<int>(pairs.train.features(row, 0));
    const int j = static_cast<int>(pairs.train.features(row, 1));
    if (i >= 40 || j >= 40 || i == j) continue;
    ((i % 4) == (j % 4) ? same : different) += pairs.train.labels[row];
  }
  // 9 same-topic partners per word against 30 others among the first 40 words.
  EXPECT_GT(same / 9.0, 1.5 * different / 30.0);
  EXPECT_EQ(text.sentences, make_zipf_text({.words = 200'000, .vocabulary = 400, .topics = 4}, 7).sentences);
}

}  // namespace
}  // namespace dtsim::models
