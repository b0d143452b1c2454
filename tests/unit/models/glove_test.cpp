#include "models/cooccurrence.hpp"
#include "models/glove.hpp"
#include "models/optimizer.hpp"
#include "models/text_corpus.hpp"
#include "models/zipf_text.hpp"
#include "sim/core/rng.hpp"
#include "gradient_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>

namespace dtsim::models {
namespace {

SplitDataset small_pairs() {
  return make_cooccurrence(make_zipf_text({.words = 3000, .vocabulary = 30, .topics = 3}, 2), 3, 0.2, 4);
}

TEST(Glove, GradientMatchesCentralFiniteDifferences) {
  const SplitDataset data = small_pairs();
  const Glove model(30, 4, 5.0, 0.75, 3);  // x_max 5: some counts above it (f = 1), most below
  std::vector<std::size_t> rows(30);
  std::iota(rows.begin(), rows.end(), 0);
  Parameters parameters = model.initial_parameters();
  parameters *= 8.0F;  // vectors near 1, so that the products matter
  testing::expect_gradient_matches_finite_differences(model, parameters, data.train, rows, 2e-4, 2e-3);
}

TEST(Glove, OnlyTheBatchWordsRowsGetAGradient) {
  const SplitDataset data = small_pairs();
  const Glove model(30, 4, 100.0, 0.75, 3);
  const std::vector<std::size_t> rows{0, 1, 2, 3};
  Parameters gradient;
  model.loss_and_gradient(model.initial_parameters(), data.train, rows, gradient);
  std::vector<std::size_t> touched;
  model.touched_rows(data.train, rows, touched);
  const SparseLayout layout = *model.sparse_layout();
  EXPECT_EQ(layout.dense, 0U);
  EXPECT_EQ(layout.row_width, 5U);
  EXPECT_EQ(layout.rows, 60U);
  EXPECT_EQ(model.parameter_count(), 300U);
  for (std::size_t row = 0; row < layout.rows; ++row) {
    if (!std::binary_search(touched.begin(), touched.end(), row)) {
      EXPECT_EQ(gradient.segment(static_cast<Eigen::Index>(row * 5), 5).norm(), 0.0F) << "row " << row;
    }
  }
  for (const std::size_t row : rows) {
    const auto context = 30 + static_cast<std::size_t>(data.train.features(static_cast<Eigen::Index>(row), 1));
    EXPECT_TRUE(std::binary_search(touched.begin(), touched.end(), context));
  }
  EXPECT_DOUBLE_EQ(model.training_flops_per_sample(), 6.0 * 4 + 8.0);
  EXPECT_DOUBLE_EQ(model.training_bytes(10), 4.0 * (3 + 4 * 5) * 10);  // ids, count, two rows and their gradients
  EXPECT_THROW(Glove(0, 4, 100.0, 0.75, 0), std::invalid_argument);
}

double cosine(const Eigen::VectorXf& a, const Eigen::VectorXf& b) {
  return static_cast<double>(a.dot(b)) / (static_cast<double>(a.norm()) * static_cast<double>(b.norm()));
}

// GloVe on the King James Bible: the loss falls by more than half, and words used together end up with
// closer vectors than words picked at random.
TEST(Glove, OnTheKjvCorpusTheLossHalvesAndRelatedWordsMoveTogether) {
  const TokenizedText text = read_text_corpus(std::filesystem::path(DTSIM_SOURCE_DIR) / "data" / "kjv.txt.gz", 1000);
  const SplitDataset data = make_cooccurrence(text, 5, 0.1, 1);
  const Glove model(text.words.size(), 32, 100.0, 0.75, 1);
  Parameters parameters = model.initial_parameters();
  const double before = model.evaluate(parameters, data.validation).loss;
  const std::unique_ptr<Optimizer> adam = make_optimizer({.kind = "adam", .learning_rate = 0.02}, parameters.size());
  Parameters gradient;
  std::vector<std::size_t> rows(1024);
  const std::size_t batches = data.train.size() / rows.size();
  for (int epoch = 0; epoch < 6; ++epoch) {
    for (std::size_t batch = 0; batch < batches; ++batch) {
      std::iota(rows.begin(), rows.end(), batch * rows.size());
      model.loss_and_gradient(parameters, data.train, rows, gradient);
      adam->begin_update();
      adam->apply(parameters, gradient);
    }
  }
  const double after = model.evaluate(parameters, data.validation).loss;
  EXPECT_LT(after, 0.5 * before);
  std::printf("validation loss %.4f -> %.4f\n", before, after);

  const auto vector_of = [&](const char* word) {
    const std::int64_t id = word_id(text, word);
    EXPECT_GE(id, 0) << word;
    return model.embedding(parameters, static_cast<std::size_t>(id));
  };
  core::RandomEngine engine = core::random_stream(5, "test/random-pairs");
  double random_mean = 0.0;
  constexpr int kPairs = 2000;
  for (int k = 0; k < kPairs; ++k) {
    const std::size_t a = core::uniform_index(engine, text.words.size());
    const std::size_t b = core::uniform_index(engine, text.words.size());
    random_mean += cosine(model.embedding(parameters, a), model.embedding(parameters, b)) / kPairs;
  }
  for (const auto& [a, b] : {std::pair{"king", "prince"}, std::pair{"father", "son"}, std::pair{"gold", "silver"}}) {
    const double similarity = cosine(vector_of(a), vector_of(b));
    EXPECT_GT(similarity, random_mean + 0.15) << a << "/" << b;
    std::printf("cosine %s/%s %.3f, random pairs %.3f\n", a, b, similarity, random_mean);
  }
}

}  // namespace
}  // namespace dtsim::models
