// Prediction intervals: the 10th-90th percentiles of the test rows' errors, drawn from the narrowest set of
// rows that has enough of them.

#include "sim/metrics/prediction_interval.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <vector>

namespace dtsim::metrics {
namespace {

ValidationRow row(std::string_view scenario, std::string_view device, std::string_view family, double error,
                  std::string_view numerics = "16-bit", std::string_view dispatcher = {}) {
  return {scenario, device, family, error, numerics, dispatcher};
}

IntervalKey key(std::string_view generation, std::string_view family, std::string_view numerics = "16-bit",
                std::string_view dispatcher = {}) {
  return {generation, family, numerics, dispatcher};
}

TEST(PredictionInterval, PercentilesOfTheMatchingRowsErrors) {
  // Errors 0.0, 0.1, ..., 1.0: the 10th percentile is 0.1, the 90th 0.9 (between order statistics).
  std::vector<ValidationRow> rows;
  for (int i = 0; i <= 10; ++i) rows.push_back(row("r", "a100", "gpt", 0.1 * i));
  rows.push_back(row("other", "h100", "gpt", 5.0));
  const PredictionInterval interval = interval_from(rows, key("ampere", "gpt"), 2.0);
  EXPECT_EQ(interval.rows, 11);
  EXPECT_EQ(interval.basis, "gpt models on ampere GPUs");
  EXPECT_DOUBLE_EQ(interval.iteration_s, 2.0);
  EXPECT_NEAR(interval.low_s, 2.0 * 1.1, 1e-12);
  EXPECT_NEAR(interval.high_s, 2.0 * 1.9, 1e-12);
}

TEST(PredictionInterval, InterpolatesBetweenOrderStatistics) {
  // Three errors -0.2, 0.0, 0.4: the 10th percentile at 0.2 of the way from -0.2 to 0.0, the 90th at 0.8 of
  // the way from 0.0 to 0.4.
  const std::vector<ValidationRow> rows{row("a", "v100", "bert", 0.4), row("b", "v100", "bert", -0.2),
                                        row("c", "v100", "bert", 0.0)};
  const PredictionInterval interval = interval_from(rows, key("volta", "bert"), 10.0);
  EXPECT_NEAR(interval.low_s, 10.0 * (1.0 - 0.16), 1e-12);
  EXPECT_NEAR(interval.high_s, 10.0 * (1.0 + 0.32), 1e-12);
}

TEST(PredictionInterval, FallsBackToTheFamilyThenToEveryRow) {
  const std::vector<ValidationRow> rows{row("a", "a100", "cnn", 0.1), row("b", "v100", "cnn", 0.2),
                                        row("c", "h100", "cnn", 0.3), row("d", "a100", "gpt", 0.0)};
  EXPECT_EQ(interval_from(rows, key("ampere", "cnn"), 1.0).basis, "cnn models on every GPU generation");
  EXPECT_EQ(interval_from(rows, key("ampere", "cnn"), 1.0).rows, 3);
  const PredictionInterval any = interval_from(rows, key("ampere", "bert"), 1.0);
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
  EXPECT_EQ(device_generation("gb200"), "blackwell");
  // No test row ran a B300: it keeps its own name, which no row's generation matches.
  EXPECT_EQ(device_generation("b300"), "b300");
}

// A run in an FP8 recipe is judged by the FP8 rows only, and a 16-bit run by the 16-bit rows only, each with its
// own fall-backs; the basis names the numerics where they are not 16 bits.
TEST(PredictionInterval, FpEightRowsJudgeFpEightRunsOnly) {
  std::vector<ValidationRow> rows{row("a", "b200", "gpt", 0.1, "fp8", ""),
                                  row("b", "gb200", "gpt", 0.2, "fp8", ""),
                                  row("c", "h100", "gpt", 0.3, "fp8", ""),
                                  row("d", "h100", "gpt", 9.0),
                                  row("e", "h100", "gpt", 9.0),
                                  row("f", "h100", "gpt", 9.0)};
  const PredictionInterval blackwell = interval_from(rows, key("blackwell", "gpt", "fp8"), 1.0);
  EXPECT_EQ(blackwell.rows, 3);
  EXPECT_EQ(blackwell.basis, "gpt models in FP8 recipes on every GPU generation");
  EXPECT_NEAR(blackwell.high_s, 1.0 + 0.28, 1e-12);
  rows.push_back(row("g", "b200", "gpt", 0.4, "fp8", ""));
  EXPECT_EQ(interval_from(rows, key("blackwell", "gpt", "fp8"), 1.0).basis,
            "gpt models in FP8 recipes on blackwell GPUs");
  const PredictionInterval sixteen = interval_from(rows, key("hopper", "gpt"), 1.0);
  EXPECT_EQ(sixteen.rows, 3);
  EXPECT_EQ(sixteen.basis, "gpt models on hopper GPUs");
  EXPECT_EQ(interval_from(rows, key("hopper", "bert", "fp8"), 1.0).basis,
            "every model in FP8 recipes and GPU generation");
}

// A mixture of experts is judged by the mixtures' rows of its dispatcher, else by every mixture's, whatever the
// generation; no dense row enters.
TEST(PredictionInterval, MixturesAreJudgedByTheirDispatchersRows) {
  std::vector<ValidationRow> rows{row("a", "b200", "moe", 0.5, "16-bit", "all_to_all"),
                                  row("b", "h100", "moe", 0.6, "fp8", "all_to_all"),
                                  row("c", "gb200", "moe", 0.8, "fp8", "all_to_all"),
                                  row("d", "h800", "moe", 0.0, "fp8", "deepep"), row("e", "h100", "gpt", -5.0)};
  const PredictionInterval all_to_all = interval_from(rows, key("hopper", "moe", "16-bit", "all_to_all"), 2.0);
  EXPECT_EQ(all_to_all.rows, 3);
  EXPECT_EQ(all_to_all.basis, "mixtures of experts on the all_to_all dispatcher");
  EXPECT_NEAR(all_to_all.low_s, 2.0 * 1.52, 1e-12);
  const PredictionInterval deepep = interval_from(rows, key("hopper", "moe", "fp8", "deepep"), 2.0);
  EXPECT_EQ(deepep.rows, 4);
  EXPECT_EQ(deepep.basis, "mixtures of experts on every dispatcher");
}

TEST(PredictionInterval, TheCompiledRowsAreTestRowsOfEveryFamily) {
  const auto rows = validation_test_rows();
  ASSERT_GE(rows.size(), 20U);
  for (const std::string_view family : {"cnn", "bert", "gpt"}) {
    EXPECT_GE(interval_from(rows, key("ampere", family), 1.0).rows, 3) << family;
  }
  // The FP8 recipes on Hopper and Blackwell, and the mixtures on each dispatcher, have rows of their own.
  EXPECT_EQ(interval_from(rows, key("hopper", "gpt", "fp8"), 1.0).basis, "gpt models in FP8 recipes on hopper GPUs");
  EXPECT_EQ(interval_from(rows, key("blackwell", "gpt", "fp8"), 1.0).basis,
            "gpt models in FP8 recipes on blackwell GPUs");
  for (const std::string_view dispatcher : {"all_to_all", "deepep"}) {
    EXPECT_EQ(interval_from(rows, key("hopper", "moe", "fp8", dispatcher), 1.0).basis,
              fmt::format("mixtures of experts on the {} dispatcher", dispatcher));
  }
}

}  // namespace
}  // namespace dtsim::metrics
