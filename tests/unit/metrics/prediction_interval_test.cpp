// Prediction intervals: the 10th-90th percentiles of the test rows' errors, drawn from the narrowest set of
// rows that has enough of them.

#include "sim/metrics/prediction_interval.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace dtsim::metrics {
namespace {

TEST(PredictionInterval, PercentilesOfTheMatchingRowsErrors) {
  // Errors 0.0, 0.1, ..., 1.0: the 10th percentile is 0.1, the 90th 0.9 (between order statistics).
  std::vector<ValidationRow> rows;
  for (int i = 0; i <= 10; ++i) rows.push_back({"r", "a100", "gpt", 0.1 * i});
  rows.push_back({"other", "h100", "gpt", 5.0});
  const PredictionInterval interval = interval_from(rows, "ampere", "gpt", 2.0);
  EXPECT_EQ(interval.rows, 11);
  EXPECT_EQ(interval.basis, "gpt models on ampere GPUs");
  EXPECT_DOUBLE_EQ(interval.iteration_s, 2.0);
  EXPECT_NEAR(interval.low_s, 2.0 * 1.1, 1e-12);
  EXPECT_NEAR(interval.high_s, 2.0 * 1.9, 1e-12);
}

TEST(PredictionInterval, InterpolatesBetweenOrderStatistics) {
  // Three errors -0.2, 0.0, 0.4: the 10th percentile at 0.2 of the way from -0.2 to 0.0, the 90th at 0.8 of
  // the way from 0.0 to 0.4.
  const std::vector<ValidationRow> rows{{"a", "v100", "bert", 0.4}, {"b", "v100", "bert", -0.2}, {"c", "v100", "bert", 0.0}};
  const PredictionInterval interval = interval_from(rows, "volta", "bert", 10.0);
  EXPECT_NEAR(interval.low_s, 10.0 * (1.0 - 0.16), 1e-12);
  EXPECT_NEAR(interval.high_s, 10.0 * (1.0 + 0.32), 1e-12);
}

TEST(PredictionInterval, FallsBackToTheFamilyThenToEveryRow) {
  const std::vector<ValidationRow> rows{{"a", "a100", "cnn", 0.1}, {"b", "v100", "cnn", 0.2}, {"c", "h100", "cnn", 0.3},
                                        {"d", "a100", "gpt", 0.0}};
  EXPECT_EQ(interval_from(rows, "ampere", "cnn", 1.0).basis, "cnn models on every GPU generation");
  EXPECT_EQ(interval_from(rows, "ampere", "cnn", 1.0).rows, 3);
  const PredictionInterval any = interval_from(rows, "ampere", "bert", 1.0);
  EXPECT_EQ(any.basis, "every model and GPU generation");
  EXPECT_EQ(any.rows, 4);
}

TEST(PredictionInterval, FamiliesAndGenerations) {
  EXPECT_EQ(model_family("profile:resnet50"), "cnn");
  EXPECT_EQ(model_family("profile:bert_large_pretraining"), "bert");
  EXPECT_EQ(model_family("profile:gpt"), "gpt");
  EXPECT_EQ(model_family("profile:llama2_70b"), "gpt");
  EXPECT_EQ(model_family("mlp"), "");
  EXPECT_EQ(device_generation("h200"), "hopper");
  EXPECT_EQ(device_generation("cpu"), "cpu");
}

TEST(PredictionInterval, TheCompiledRowsAreTestRowsOfEveryFamily) {
  const auto rows = validation_test_rows();
  ASSERT_GE(rows.size(), 20U);
  for (const std::string_view family : {"cnn", "bert", "gpt"}) {
    EXPECT_GE(interval_from(rows, "ampere", family, 1.0).rows, 3) << family;
  }
}

}  // namespace
}  // namespace dtsim::metrics
