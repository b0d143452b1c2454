#include "models/optimizer.hpp"
#include "models/sgd.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dtsim::models {
namespace {

Parameters vector_of(std::initializer_list<float> values) {
  Parameters out(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (const float value : values) out[i++] = value;
  return out;
}

TEST(Optimizer, SgdIsTheSgdStepBitForBit) {
  Parameters a = vector_of({0.3F, -1.7F, 2.9F});
  Parameters b = a;
  const Parameters gradient = vector_of({0.11F, 0.7F, -3.3F});
  make_optimizer({.kind = "sgd", .learning_rate = 0.37}, 3)->apply(a, gradient);
  Sgd(0.37).apply(b, gradient);
  EXPECT_EQ(a, b);
}

TEST(Optimizer, MomentumAccumulatesAVelocity) {
  const auto optimizer = make_optimizer({.kind = "momentum", .learning_rate = 0.1, .momentum = 0.5}, 1);
  Parameters x = vector_of({1.0F});
  optimizer->apply(x, vector_of({2.0F}));  // v = 2, x = 1 - 0.2
  EXPECT_FLOAT_EQ(x[0], 0.8F);
  optimizer->apply(x, vector_of({2.0F}));  // v = 0.5 * 2 + 2 = 3, x = 0.8 - 0.3
  EXPECT_FLOAT_EQ(x[0], 0.5F);
}

TEST(Optimizer, AdamFollowsItsFormulaWithBiasCorrection) {
  const OptimizerSettings settings{.kind = "adam", .learning_rate = 0.01, .beta1 = 0.9, .beta2 = 0.999, .epsilon = 1e-8};
  const auto optimizer = make_optimizer(settings, 2);
  Parameters x = vector_of({1.0F, -2.0F});
  double m[2] = {0, 0};
  double v[2] = {0, 0};
  double reference[2] = {1.0, -2.0};
  const double gradients[3][2] = {{0.5, -4.0}, {0.25, 1.0}, {-1.0, 0.0}};
  for (int t = 1; t <= 3; ++t) {
    optimizer->apply(x, vector_of({static_cast<float>(gradients[t - 1][0]), static_cast<float>(gradients[t - 1][1])}));
    for (int i = 0; i < 2; ++i) {
      const double g = gradients[t - 1][i];
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      reference[i] -= 0.01 * (m[i] / (1 - std::pow(0.9, t))) / (std::sqrt(v[i] / (1 - std::pow(0.999, t))) + 1e-8);
    }
    EXPECT_NEAR(x[0], reference[0], 1e-6) << "step " << t;
    EXPECT_NEAR(x[1], reference[1], 1e-6) << "step " << t;
  }
  // The first step moves every parameter by about the learning rate, whatever the gradient's scale.
  const auto fresh = make_optimizer(settings, 1);
  Parameters y = vector_of({0.0F});
  fresh->apply(y, vector_of({1000.0F}));
  EXPECT_NEAR(y[0], -0.01, 1e-6);
}

// State is kept per position: updating a segment at an offset is what an optimizer of that segment alone
// does, and leaves the other positions' state untouched.
// begin_update(s) takes the step an optimizer built with learning rate s x lr would take from the same state:
// the moments do not depend on the rate, so two optimizers fed the same gradients keep the same state.
class RateScale : public ::testing::TestWithParam<std::string> {};

TEST_P(RateScale, ScaledUpdateIsTheStepAtTheScaledLearningRate) {
  const double lr = 0.05;
  const double scale = 1.0 / 3.0;
  const auto scaled = make_optimizer({.kind = GetParam(), .learning_rate = lr}, 3);
  const auto reference = make_optimizer({.kind = GetParam(), .learning_rate = lr * scale}, 3);
  Parameters a = vector_of({0.3F, -1.7F, 2.9F});
  Parameters b = a;
  for (int step = 0; step < 4; ++step) {
    const Parameters gradient = vector_of({0.11F * static_cast<float>(step + 1), 0.7F, -3.3F / static_cast<float>(step + 1)});
    const Parameters a_before = a;
    const Parameters b_before = b;
    scaled->begin_update(scale);
    scaled->update(std::span<float>(a.data(), 3), std::span<const float>(gradient.data(), 3), 0);
    reference->begin_update();
    reference->update(std::span<float>(b.data(), 3), std::span<const float>(gradient.data(), 3), 0);
    for (Eigen::Index i = 0; i < 3; ++i) EXPECT_NEAR(a[i] - a_before[i], b[i] - b_before[i], 1e-6) << GetParam() << " step " << step;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, RateScale, ::testing::Values("sgd", "momentum", "adam"));

TEST(Optimizer, ASegmentUpdateUsesThatSegmentsState) {
  const OptimizerSettings settings{.kind = "adam", .learning_rate = 0.05};
  const auto whole = make_optimizer(settings, 6);
  const auto alone = make_optimizer(settings, 2);
  Parameters table = Parameters::Constant(6, 1.0F);
  Parameters segment = Parameters::Constant(2, 1.0F);
  const Parameters gradient = vector_of({0.3F, -0.6F});
  for (int step = 0; step < 4; ++step) {
    whole->begin_update();
    whole->update(std::span<float>(table.data() + 2, 2), std::span<const float>(gradient.data(), 2), 2);
    alone->apply(segment, gradient);
  }
  EXPECT_EQ(table.segment(2, 2), segment);
  EXPECT_EQ(table[0], 1.0F);
  EXPECT_EQ(table[5], 1.0F);
}

TEST(Optimizer, FlopsAndBadInput) {
  EXPECT_DOUBLE_EQ(make_optimizer({.kind = "sgd"}, 10)->flops(10), 20.0);
  EXPECT_DOUBLE_EQ(make_optimizer({.kind = "momentum"}, 10)->flops(10), 40.0);
  EXPECT_DOUBLE_EQ(make_optimizer({.kind = "adam"}, 10)->flops(10), 140.0);
  EXPECT_THROW(static_cast<void>(make_optimizer({.kind = "rmsprop"}, 1)), std::invalid_argument);
  const auto optimizer = make_optimizer({.kind = "sgd"}, 2);
  Parameters x = Parameters::Zero(3);
  EXPECT_THROW(optimizer->apply(x, Parameters::Zero(3)), std::invalid_argument);
}

}  // namespace
}  // namespace dtsim::models
