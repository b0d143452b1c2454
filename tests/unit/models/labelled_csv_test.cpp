#include "models/labelled_csv.hpp"
#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace dtsim::models {
namespace {

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "labelled_csv";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / name) << text;
  return folder / name;
}

std::string error_of(const std::string& text) {
  try {
    static_cast<void>(read_labelled_csv(write("bad.csv", text)));
  } catch (const core::InputError& error) {
    const std::string what = error.what();
    return what.substr(what.find("bad.csv"));
  }
  return "no error";
}

TEST(LabelledCsv, ReadsTheHeaderTheFeaturesAndTheLabels) {
  const LabelledTable table = read_labelled_csv(write("good.csv", "3,2,cat,dog\n1.5,2,0\n-1,0.25,1\n3,4,1\n"));
  EXPECT_EQ(table.class_names, (std::vector<std::string>{"cat", "dog"}));
  ASSERT_EQ(table.features.rows(), 3);
  ASSERT_EQ(table.features.cols(), 2);
  EXPECT_EQ(table.features(1, 1), 0.25F);
  EXPECT_EQ(table.labels[2], 1.0F);
}

TEST(LabelledCsv, WithoutAHeaderTheClassesGoToTheLargestLabel) {
  const LabelledTable table = read_labelled_csv(write("plain.csv", "1,2,0\n3,4,2\n"));
  EXPECT_EQ(table.class_names.size(), 3U);
}

TEST(LabelledCsv, BadRowsAreNamedByLine) {
  EXPECT_EQ(error_of("2,1,a,b\n1,0\n2,x\n"), "bad.csv:3:1: error: a row that is not all numbers\n"
                                             "  hint: rows are the features, then the class index");
  EXPECT_EQ(error_of("1,2,0\n1,2\n"), "bad.csv:2:1: error: a row of 2 values where the table has 3");
  EXPECT_EQ(error_of("2,1,a,b\n1,0\n2,5\n"), "bad.csv:3:1: error: label 5 is not a class index\n  hint: classes are 0..1");
  EXPECT_EQ(error_of("3,1,a,b\n1,0\n2,1\n"), "bad.csv:1:1: error: the header declares 3 samples and the file has 2");
}

TEST(LabelledCsv, SplitIsSeededAndStandardizedByTheTrainingPart) {
  const LabelledTable table = read_labelled_csv(std::filesystem::path(DTSIM_SOURCE_DIR) / "data" / "iris.csv");
  ASSERT_EQ(table.features.rows(), 150);
  const SplitDataset split = split_and_standardize(table, 0.2, 4, "iris");
  EXPECT_EQ(split.train.size(), 120U);
  EXPECT_EQ(split.validation.size(), 30U);
  EXPECT_EQ(split.train.classes, 3U);
  const Eigen::RowVectorXd mean = split.train.features.cast<double>().colwise().mean();
  EXPECT_LT(mean.cwiseAbs().maxCoeff(), 1e-5);
  const Eigen::RowVectorXd variance = (split.train.features.cast<double>().rowwise() - mean).array().square().colwise().mean();
  for (Eigen::Index c = 0; c < variance.size(); ++c) EXPECT_NEAR(variance[c], 1.0, 1e-4);
  EXPECT_EQ(split_and_standardize(table, 0.2, 4, "iris").train.labels, split.train.labels);
  EXPECT_NE(split_and_standardize(table, 0.2, 5, "iris").train.labels, split.train.labels);
}

}  // namespace
}  // namespace dtsim::models
