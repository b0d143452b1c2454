#include "models/gaussian_blobs.hpp"
#include "models/moe_classifier.hpp"
#include "gradient_check.hpp"

#include <gtest/gtest.h>

namespace dtsim::models {
namespace moe_test {

MixtureShape small_shape(std::size_t top_k, Activation activation = Activation::Tanh) {
  return {.features = 5, .width = 6, .experts = 4, .expert_width = 3, .classes = 3, .top_k = top_k,
          .activation = activation};
}

Dataset blobs() { return make_gaussian_blobs({.samples = 120, .features = 5, .classes = 3}, 7).train; }

/// Rows whose k-th and (k+1)-th gate probabilities are `margin` apart or more, so that a finite-difference step
/// leaves every choice as it is: the loss is smooth there.
std::vector<std::size_t> clear_choices(const MoeClassifier& model, const Parameters& parameters, const Dataset& data,
                                       float margin) {
  const MixtureShape& s = model.shape();
  const FrontPass front = front_forward(s, std::span(parameters.data(), s.dense_parameters()), data.features);
  std::vector<std::size_t> out;
  for (Eigen::Index i = 0; i < front.routing.probabilities.rows() && out.size() < 24; ++i) {
    std::vector<float> p(front.routing.probabilities.row(i).begin(), front.routing.probabilities.row(i).end());
    std::sort(p.begin(), p.end(), std::greater<>());
    if (p[s.top_k - 1] - p[s.top_k] >= margin) out.push_back(static_cast<std::size_t>(i));
  }
  return out;
}

void expect_gradient_matches(const MixtureShape& shape) {
  const MoeClassifier model(shape, 3);
  const Dataset data = blobs();
  const Parameters parameters = model.initial_parameters();
  const std::vector<std::size_t> rows = clear_choices(model, parameters, data, 0.05F);
  ASSERT_GE(rows.size(), 10U);
  testing::expect_gradient_matches_finite_differences(model, parameters, data, rows, 2e-4, 2e-3, 2e-3F);
}

TEST(MoeClassifier, TopTwoGradientMatchesCentralFiniteDifferences) { expect_gradient_matches(small_shape(2)); }

TEST(MoeClassifier, TopOneGradientReachesTheGateThroughItsProbability) {
  const MixtureShape shape = small_shape(1);
  expect_gradient_matches(shape);
  // With one expert chosen, the gate still learns: its gradient is not zero.
  const MoeClassifier model(shape, 3);
  const Dataset data = blobs();
  Parameters gradient;
  const std::vector<std::size_t> rows{0, 1, 2, 3, 4, 5, 6, 7};
  model.loss_and_gradient(model.initial_parameters(), data, rows, gradient);
  const auto gate = static_cast<Eigen::Index>(shape.features * shape.width + shape.width);
  EXPECT_GT(gradient.segment(gate, static_cast<Eigen::Index>(shape.width * shape.experts)).norm(), 1e-4);
}

TEST(MoeClassifier, LogitsAreTheChosenExpertsOutputsWeightedByTheirProbabilities) {
  const MixtureShape shape = small_shape(2);
  const MoeClassifier model(shape, 5);
  const Dataset data = blobs();
  const Parameters p = model.initial_parameters();
  const FrontPass front = front_forward(shape, std::span(p.data(), shape.dense_parameters()), data.features.topRows(1));
  const Routing& r = front.routing;
  ASSERT_EQ(r.slots(), 2U);
  EXPECT_GE(r.weight(0), r.weight(1));  // most probable first
  RowMatrix expected = RowMatrix::Zero(1, 3);
  for (std::size_t t = 0; t < 2; ++t) {
    const ExpertPass pass = expert_forward(
        shape, std::span(p.data() + shape.expert_offset(r.expert[t]), shape.expert_parameters()), front.hidden);
    expected += r.weight(t) * pass.output;
  }
  RowMatrix slot_outputs(2, 3);
  for (std::size_t t = 0; t < 2; ++t) {
    slot_outputs.row(static_cast<Eigen::Index>(t)) =
        expert_forward(shape, std::span(p.data() + shape.expert_offset(r.expert[t]), shape.expert_parameters()),
                       front.hidden)
            .output;
  }
  EXPECT_LE((combine(r, slot_outputs) - expected).cwiseAbs().maxCoeff(), 1e-6F);
}

TEST(MoeClassifier, CountsItsParametersAndTheActiveOnes) {
  const MoeClassifier model(small_shape(2), 1);
  const std::size_t dense = (5 * 6 + 6) + (6 * 4 + 4);
  const std::size_t expert = (6 * 3 + 3) + (3 * 3 + 3);
  EXPECT_EQ(model.parameter_count(), dense + 4 * expert);
  EXPECT_EQ(model.active_parameter_count(), dense + 2 * expert);
  // Forward 2 per weight, backward 4 (2 for the trunk, which passes nothing back), 5 per class.
  const double expected = 2.0 * (30 + 24) + (2.0 * 30 + 4.0 * 24) + 2.0 * 6.0 * (18 + 9) + 5.0 * 3;
  EXPECT_DOUBLE_EQ(model.training_flops_per_sample(), expected);
}

TEST(MoeClassifier, RejectsShapesItCannotRoute) {
  MixtureShape shape = small_shape(5);
  EXPECT_THROW(MoeClassifier(shape, 1), std::invalid_argument);
  shape = small_shape(0);
  EXPECT_THROW(MoeClassifier(shape, 1), std::invalid_argument);
  shape = small_shape(1);
  shape.experts = 1;
  EXPECT_THROW(MoeClassifier(shape, 1), std::invalid_argument);
}

}  // namespace moe_test
}  // namespace dtsim::models
