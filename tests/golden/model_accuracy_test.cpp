// Real models on real data, as a user runs them: softmax regression on the digits reaches at least 90%
// validation accuracy, an MLP at least 95%.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace dtsim::testing {
namespace {

double final_accuracy(const std::string& scenario) {
  const auto folder = fresh_output_folder("accuracy-" + scenario);
  const CommandResult run = run_dtsim("run " + scenario_path("models/" + scenario + ".yaml").string() + " -q -o " +
                                      folder.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  const auto summary = nlohmann::json::parse(read_file(folder / "summary.json"));
  return summary["result"]["final"]["val_accuracy"].get<double>();
}

TEST(ModelAccuracy, SoftmaxRegressionOnDigitsReachesNinetyPercent) {
  const double accuracy = final_accuracy("digits-softmax");
  EXPECT_GE(accuracy, 0.90);
  RecordProperty("val_accuracy", std::to_string(accuracy));
}

TEST(ModelAccuracy, PerceptronOnDigitsReachesNinetyFivePercent) {
  const double accuracy = final_accuracy("digits-mlp");
  EXPECT_GE(accuracy, 0.95);
  RecordProperty("val_accuracy", std::to_string(accuracy));
}

}  // namespace
}  // namespace dtsim::testing
