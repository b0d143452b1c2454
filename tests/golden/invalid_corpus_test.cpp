// Every file under tests/invalid/ is a scenario with mistakes; beside it, its .expected file holds the
// exact report `dtsim validate` must give, file:line:col included. The files name their paths relative
// to the source tree, so the tests run from there.

#include "run_dtsim.hpp"
#include "sim/app/document_commands.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

namespace dtsim::testing {
namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> cases;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/invalid")) {
    if (entry.path().extension() == ".yaml") cases.push_back("tests/invalid/" + entry.path().filename().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::string expected_report(const std::string& relative) {
  std::filesystem::path expected = std::filesystem::path(DTSIM_SOURCE_DIR) / relative;
  expected.replace_extension(".expected");
  return read_file(expected);
}

class InvalidScenario : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_EQ(::chdir(DTSIM_SOURCE_DIR), 0); }
};

TEST_P(InvalidScenario, IsReportedExactlyAsExpected) {
  const app::Registries registries = app::make_builtin_registries();
  const auto result = app::validate_command({GetParam()}, registries);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.report, "");
  EXPECT_EQ(result.errors, expected_report(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Corpus, InvalidScenario, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = std::filesystem::path(param.param).stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           return "case_" + name;
                         });

TEST(InvalidCorpus, HasAtLeastEightyCases) { EXPECT_GE(corpus().size(), 80U); }

TEST(InvalidCorpus, ValidateOnTheWholeCorpusGivesEveryReportAndExitsTwo) {
  ASSERT_EQ(::chdir(DTSIM_SOURCE_DIR), 0);
  std::string arguments = "validate";
  std::string expected;
  for (const auto& file : corpus()) {
    arguments += " " + file;
    expected += expected_report(file);
  }
  const CommandResult run = run_dtsim(arguments);
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, expected);
}

}  // namespace
}  // namespace dtsim::testing
