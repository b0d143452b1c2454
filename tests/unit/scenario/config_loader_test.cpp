#include "sim/scenario/config_loader.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace dtsim::scenario {
namespace {

std::string first_error(const std::string& text) {
  core::DiagnosticSink sink;
  load_config_text(dtsim::test::scenario_format().schema(), text, "s.yaml", sink,
                   LoadOptions{.allow_includes = false, .confine = std::nullopt, .study_scenario = std::nullopt,
                               .name_points = false});
  return sink.empty() ? "no error" : sink.diagnostics().front().format();
}

TEST(ConfigLoader, KeepsThePositionOfEveryKeyAndValue) {
  core::DiagnosticSink sink;
  const ConfigNode root = load_config_text(dtsim::test::scenario_format().schema(), "a:\n  b: [1, 2]\n  c: x\n", "s.yaml", sink);
  ASSERT_TRUE(sink.empty());
  const ConfigEntry* a = root.find_entry("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->key_where.line, 1);
  EXPECT_EQ(a->value.find("b")->items[1].where.line, 2);
  EXPECT_EQ(a->value.find("b")->items[1].where.column, 10);
  EXPECT_EQ(a->value.find("c")->scalar, "x");
}

TEST(ConfigLoader, DeepNestingIsAnErrorNotAStackOverflow) {
  EXPECT_EQ(first_error(std::string(100, '[') + std::string(100, ']')),
            "s.yaml:1:66: error: values are nested more than 64 levels deep");
}

TEST(ConfigLoader, AliasesThatMultiplyEachOtherAreStopped) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char level = 'b'; level <= 'h'; ++level) {
    const char previous = static_cast<char>(level - 1);
    bomb += fmt::format("{0}: &{0} [*{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}]\n", level, previous);
  }
  const std::string error = first_error(bomb);
  EXPECT_NE(error.find("the document has more than 200000 values"), std::string::npos) << error;
}

TEST(ConfigLoader, TextMustBeUtf8WithoutControlCharacters) {
  EXPECT_EQ(first_error("name: \"a\\x01b\"\n"), "s.yaml:1:7: error: the value contains the control character 0x01 at byte 1\n"
                                                "  hint: write plain text");
  EXPECT_EQ(first_error("name: caf\xe9\n"), "s.yaml:1:7: error: the value is not UTF-8 text (byte 0xE9 at byte 3)\n"
                                            "  hint: write plain text");
  EXPECT_EQ(first_error("name: \"caf\xc3\xa9, tab\\there\"\n"), "no error");
}

// YAML breaks lines at a carriage return alone as at a line feed (files saved with classic Mac OS line endings):
// such a file reads as the same file with line feeds, its positions on the same lines.
TEST(ConfigLoader, ACarriageReturnAloneEndsALineAsYamlSays) {
  std::string returns = "# a comment first\na:\n  b: [1, 2]\n  c: x\n";
  std::replace(returns.begin(), returns.end(), '\n', '\r');
  core::DiagnosticSink sink;
  const ConfigNode root = load_config_text(dtsim::test::scenario_format().schema(), returns, "s.yaml", sink);
  ASSERT_TRUE(sink.empty());
  const ConfigEntry* a = root.find_entry("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->key_where.line, 2);
  EXPECT_EQ(a->value.find("b")->items[1].where.line, 3);
  EXPECT_EQ(a->value.find("c")->scalar, "x");
  EXPECT_EQ(first_error("a: 1\rb: [\r"), first_error("a: 1\nb: [\n"));
  EXPECT_EQ(first_error("a: 1\r\nb: 2\r\n"), "no error");
}

TEST(ConfigLoader, IncludesAreRefusedWhereThereIsNoFile) {
  EXPECT_EQ(first_error("include: other.yaml\nname: x\n"),
            "s.yaml:1:10: error: include: include is not available here\n  hint: include works in scenario files on disk");
}

// A chain of includes stops at the depth limit, with one error, instead of reading (and echoing) thousands.
TEST(ConfigLoader, IncludesNestAtMostThirtyTwoDeep) {
  const auto folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "include_chain";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  for (int i = 0; i < 200; ++i) std::ofstream(folder / fmt::format("c{}.yaml", i)) << fmt::format("include: c{}.yaml\n", i + 1);
  std::ofstream(folder / "c200.yaml") << "name: x\n";
  core::DiagnosticSink sink;
  load_config_file(dtsim::test::scenario_format().schema(), folder / "c0.yaml", sink);
  ASSERT_EQ(sink.size(), 1U);
  const core::Diagnostic& error = sink.diagnostics().front();
  EXPECT_EQ(error.where.file, (folder / "c32.yaml").string());
  EXPECT_EQ(error.message, "includes nest more than 32 files deep");
  EXPECT_EQ(error.where.included_from.size(), 32U);
}

TEST(ConfigLoader, AScenarioFileLargerThanTheLimitIsNotRead) {
  const auto file = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "large.yaml";
  { std::ofstream create(file); }
  std::filesystem::resize_file(file, (16U << 20U) + 1);
  core::DiagnosticSink sink;
  load_config_file(dtsim::test::scenario_format().schema(), file, sink);
  ASSERT_EQ(sink.size(), 1U);
  EXPECT_EQ(sink.diagnostics().front().message, "cannot read scenario file: it is 16777217 bytes, more than the 16 MiB such a file may be");
}

TEST(ConfigLoader, MergeOverlaysMappingsAndReplacesTheRest) {
  core::DiagnosticSink sink;
  ConfigNode base = load_config_text(dtsim::test::scenario_format().schema(), "a: {x: 1, y: [1, 2]}\nb: 1\n", "base.yaml", sink);
  const ConfigNode overlay = load_config_text(dtsim::test::scenario_format().schema(), "a: {y: [3], z: 4}\n", "over.yaml", sink);
  merge_into(base, overlay);
  EXPECT_EQ(base.find("a")->find("x")->scalar, "1");
  ASSERT_EQ(base.find("a")->find("y")->items.size(), 1U);
  EXPECT_EQ(base.find("a")->find("y")->items[0].where.file, "over.yaml");
  EXPECT_EQ(base.find("a")->find("z")->scalar, "4");
  EXPECT_EQ(base.find("b")->scalar, "1");
}

// An including file takes out what an included one set with `key: null` (or an empty value).
TEST(ConfigLoader, ANullValueRemovesTheKeyItOverlays) {
  core::DiagnosticSink sink;
  ConfigNode base = load_config_text(dtsim::test::scenario_format().schema(), "a: {x: 1, y: 2}\nb: [1]\nc: 3\n", "base.yaml", sink);
  merge_into(base, load_config_text(dtsim::test::scenario_format().schema(), "a: {x: null}\nb:\nd: ~\n", "over.yaml", sink));
  ASSERT_NE(base.find("a"), nullptr);
  EXPECT_EQ(base.find("a")->find("x"), nullptr);
  EXPECT_EQ(base.find("a")->find("y")->scalar, "2");
  EXPECT_EQ(base.find("b"), nullptr);
  EXPECT_EQ(base.find("c")->scalar, "3");
  ASSERT_NE(base.find("d"), nullptr) << "a null over nothing stays, for validation to judge";
  EXPECT_TRUE(base.find("d")->is_null());
}

// An included file whose keys are no scenario sections (a system file) is named, never quoted.
TEST(ConfigLoader, AnIncludedFileThatIsNoScenarioFragmentIsNamedNotQuoted) {
  const auto folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "include_foreign";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "shadow") << "root:$6$secret-hash:19000:0:99999:7:::\nuser:$6$other:19000::::::\n";
  std::ofstream(folder / "passwd") << "root:x:0:0:root:/root:/bin/bash\nsecret:x:1:1::/home/secret:/bin/sh\n";
  std::ofstream(folder / "s.yaml") << "include: [shadow, passwd]\nname: x\n";
  core::DiagnosticSink sink;
  load_config_file(dtsim::test::scenario_format().schema(), folder / "s.yaml", sink);
  ASSERT_EQ(sink.size(), 2U);
  for (const core::Diagnostic& error : sink.diagnostics()) {
    EXPECT_EQ(error.message.find("secret"), std::string::npos) << error.message;
    EXPECT_EQ(error.where.file, (folder / "s.yaml").string());
  }
  EXPECT_EQ(sink.diagnostics()[0].message,
            fmt::format("'{}' is not a scenario fragment: none of its 2 keys is a scenario section", (folder / "shadow").string()));
  EXPECT_EQ(sink.diagnostics()[1].message,
            fmt::format("'{}' is not a scenario fragment: it holds a single text, not a mapping of scenario sections",
                        (folder / "passwd").string()));
}

}  // namespace
}  // namespace dtsim::scenario
