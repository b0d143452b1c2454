#include "models/labelled_csv.hpp"
#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace dtsim::models {
namespace {

// CTest runs each test as its own process, two at a time: a folder per test keeps them from
// overwriting each other's bad.csv.
std::filesystem::path test_folder() {
  return std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "labelled_csv" /
         ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

std::filesystem::path write(const std::string& name, const std::string& text) {
  const auto folder = test_folder();
  std::filesystem::create_directories(folder);
  std::ofstream(folder / name) << text;
  return folder / name;
}

std::string error_of(const std::string& text) {
  try {
    static_cast<void>(read_labelled_csv(write("bad.csv", text)));
  } catch (const core::InputError& error) {
    // Names the file as bad.csv, wherever the test writes it.
    std::string what = error.what();
    const std::string folder = test_folder().string() + "/";
    for (std::size_t at = what.find(folder); at != std::string::npos; at = what.find(folder)) what.erase(at, folder.size());
    return what;
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

constexpr const char* kRowHint = "  hint: a row is the features, then the class index: 5.1,3.5,1.4,0.2,0";

TEST(LabelledCsv, BadRowsAreNamedByLineAndColumn) {
  EXPECT_EQ(error_of("2,1,a,b\n1,0\n2,x\n"), std::string("bad.csv:3:3: error: 'x' is not a number\n") + kRowHint);
  EXPECT_EQ(error_of("1,2,0\n1,2\n"),
            "bad.csv:2:1: error: a row of 2 values where the table has 3\n  hint: every row has 2 features and a class");
  EXPECT_EQ(error_of("2,1,a,b\n1,0\n2,5\n"), "bad.csv:3:3: error: label 5 is not a class index\n  hint: classes are 0..1");
  EXPECT_EQ(error_of("3,1,a,b\n1,0\n2,1\n"), "bad.csv:1:1: error: the header declares 3 samples and the file has 2");
}

TEST(LabelledCsv, EveryBadRowIsReportedInOneRun) {
  EXPECT_EQ(error_of("1,2,0\n1,x,1\n1,2,1\n1,2\n0,0,7.5\n"),
            std::string("bad.csv:2:3: error: 'x' is not a number\n") + kRowHint +
                "\nbad.csv:4:1: error: a row of 2 values where the table has 3\n  hint: every row has 2 features and a class"
                "\nbad.csv:5:5: error: label 7.5 is not a class index\n  hint: the last value of a row is its class: 0, 1, 2, ...");
  std::string many = "1,2,0\n1,2,1\n";
  for (int i = 0; i < 30; ++i) many += "1,y,0\n";
  const std::string report = error_of(many);
  EXPECT_NE(report.find("bad.csv:3:3: error: 'y' is not a number"), std::string::npos);
  EXPECT_NE(report.find("bad.csv:22:3: error: this cell is not a number"), std::string::npos);
  EXPECT_EQ(report.find("bad.csv:23:3"), std::string::npos) << "twenty problems are listed";
  EXPECT_NE(report.find("bad.csv: error: 10 more problems like these are not listed"), std::string::npos) << report;
}

TEST(LabelledCsv, NotANumberAndInfinityAreRefused) {
  EXPECT_EQ(error_of("1,2,0\nnan,2,1\n1, inf,0\n"),
            "bad.csv:2:1: error: 'nan' is not a finite number\n  hint: fill in the missing value, or leave the row out\n"
            "bad.csv:3:3: error: this cell is not a finite number\n  hint: fill in the missing value, or leave the row out");
}

// A data file may be one the scenario's author had no business showing (data.path: ../../etc/shadow): an
// error quotes one cell of it at most, cut short, and a file that is no table of numbers is named only.
TEST(LabelledCsv, AnErrorQuotesAtMostOneShortExcerpt) {
  const std::string report = error_of("1,2,0\n1,secret-one-that-is-much-longer-than-a-cell,1\n1,secret-two,1\n");
  EXPECT_EQ(report, std::string("bad.csv:2:3: error: 'secret-one-that-is-much-...' is not a number\n") + kRowHint +
                        "\nbad.csv:3:3: error: this cell is not a number\n" + kRowHint);
  EXPECT_EQ(error_of("root:*:19000:0:99999:7:::\nuser:$6$salt$hash:19000:0:99999:7:::\n"),
            "bad.csv: error: this file is not a table of numbers: none of its rows starts with one\n"
            "  hint: data.path names a CSV file of numbers, relative to the scenario's folder");
}

TEST(LabelledCsv, ATableAClassifierCannotLearnFromIsRefused) {
  EXPECT_EQ(error_of("1,2,0\n3,4,0\n"),
            "bad.csv: error: every row has class 0: a classifier needs samples of at least two classes\n"
            "  hint: the last value of each row is its class");
  EXPECT_EQ(error_of("0\n1\n"), std::string("bad.csv:1:1: error: a row of one value; a row needs at least one feature and "
                                             "a class\n") + kRowHint + "\nbad.csv:2:1: error: a row of one value; a row "
                                             "needs at least one feature and a class\n" + kRowHint);
  EXPECT_EQ(error_of("\n\n"), std::string("bad.csv: error: the file holds no rows of numbers\n") + kRowHint);
}

TEST(LabelledCsv, OnlyARegularFileIsRead) {
  const auto folder = test_folder();
  std::filesystem::create_directories(folder);
  try {
    static_cast<void>(read_labelled_csv(folder));
    FAIL();
  } catch (const core::InputError& error) {
    EXPECT_NE(std::string(error.what()).find("error: cannot read this data file: it is a folder, not a file"), std::string::npos);
  }
  try {
    static_cast<void>(read_labelled_csv("/dev/zero"));
    FAIL();
  } catch (const core::InputError& error) {
    EXPECT_EQ(std::string(error.what()), "/dev/zero: error: cannot read this data file: it is a device, not a file\n"
                                         "  hint: data.path names a CSV file, relative to the scenario's folder");
  }
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
