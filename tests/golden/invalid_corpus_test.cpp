// Every file under tests/invalid/ is a scenario with mistakes; beside it, its .expected file holds the
// exact report `dtsim validate` must give, file:line:col included, and `dtsim validate --json` the same problems
// as records. The files name their paths relative to the source tree, so the tests run from there.

#include "run_dtsim.hpp"
#include "sim/app/document_commands.hpp"
#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
  const checks::Registries registries = checks::make_builtin_registries();
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

/// `command` (such as "validate") over every file of the corpus, and the reports expected, every file's in turn.
struct CorpusCall {
  std::string arguments;
  std::string expected;
};
CorpusCall on_the_whole_corpus(const std::string& command) {
  CorpusCall out{command, ""};
  for (const auto& file : corpus()) {
    out.arguments += " " + file;
    out.expected += expected_report(file);
  }
  return out;
}

TEST(InvalidCorpus, ValidateOnTheWholeCorpusGivesEveryReportAndExitsTwo) {
  ASSERT_EQ(::chdir(DTSIM_SOURCE_DIR), 0);
  const auto [arguments, expected] = on_the_whole_corpus("validate");
  const CommandResult run = run_dtsim(arguments);
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, expected);
}

/// A record of `dtsim validate --json` written as the text report writes its problem (core::Diagnostic::format of
/// the record's fields): where the two agree, the records hold everything the report says.
std::string as_report(const nlohmann::json& record) {
  const auto position = [](const nlohmann::json& at) {
    return core::SourcePosition(at.at("file").get<std::string>(), at.at("line").get<int>(), at.at("column").get<int>());
  };
  core::Diagnostic diagnostic{position(record), record.at("key").get<std::string>(),
                              record.at("message").get<std::string>(), record.at("hint").get<std::string>()};
  for (const auto& site : record.at("included_from")) diagnostic.where.included_from.push_back(position(site));
  return diagnostic.format() + "\n";
}

TEST(ValidateJson, GivesTheWholeCorpusReportAsRecordsAndExitsTwo) {
  ASSERT_EQ(::chdir(DTSIM_SOURCE_DIR), 0);
  const auto [arguments, expected] = on_the_whole_corpus("validate --json");
  const CommandResult run = run_dtsim(arguments);
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, "") << "the records are the whole report";
  const nlohmann::json records = nlohmann::json::parse(run.out);
  ASSERT_TRUE(records.is_array());
  std::string reported;
  for (const auto& record : records) reported += as_report(record);
  EXPECT_EQ(reported, expected);
}

TEST(ValidateJson, NamesEveryFieldOfARecordWithItsIncludesInnermostFirst) {
  ASSERT_EQ(::chdir(DTSIM_SOURCE_DIR), 0);
  const CommandResult run =
      run_dtsim("validate --json tests/invalid/100-include-two-levels.yaml tests/invalid/002-empty-file.yaml");
  EXPECT_EQ(run.exit_status, 2);
  const auto records = nlohmann::ordered_json::parse(run.out);
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].dump(),
            R"({"file":"tests/invalid/include/inner.yaml","line":2,"column":18,"key":"topology.network_model",)"
            R"("message":"unknown network model 'tpc'","hint":"did you mean 'tcp'?","included_from":[)"
            R"({"file":"tests/invalid/include/outer.yaml","line":1,"column":10},)"
            R"({"file":"tests/invalid/100-include-two-levels.yaml","line":3,"column":10}]})");
  // A problem of the whole file has no line or column (0), and no key.
  EXPECT_EQ(records[1].dump(),
            R"({"file":"tests/invalid/002-empty-file.yaml","line":0,"column":0,"key":"","message":"a scenario must )"
            R"(be a YAML mapping (name:, cluster:, topology:, ...); the file is empty","hint":"start from )"
            R"(scenarios/quickstart.yaml","included_from":[]})");
}

TEST(ValidateJson, PrintsAnEmptyArrayForValidFiles) {
  const CommandResult run = run_dtsim("validate --json " + scenario_path("quickstart.yaml").string() + " " +
                                      scenario_path("course/03-collectives.yaml").string());
  EXPECT_EQ(run.exit_status, 0);
  EXPECT_EQ(run.out, "[]\n");
  EXPECT_EQ(run.err, "");
}

}  // namespace
}  // namespace dtsim::testing
