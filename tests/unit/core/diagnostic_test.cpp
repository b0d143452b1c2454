#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>

namespace dtsim::core {
namespace {

TEST(Diagnostic, FormatsPositionKeyMessageAndHint) {
  const Diagnostic diagnostic{{"s.yaml", 12, 5}, "training.epochs", "must be >= 1, got 0", "try 1"};
  EXPECT_EQ(diagnostic.format(), "s.yaml:12:5: error: training.epochs: must be >= 1, got 0\n  hint: try 1");
}

TEST(Diagnostic, ControlBytesArePrintedAsEscapes) {
  const Diagnostic quoting_binary{{std::string("bin\x1b[2J.yaml"), 1, 2}, "", std::string("unknown escape character: \0\x7f", 28), ""};
  EXPECT_EQ(quoting_binary.format(), "bin\\x1b[2J.yaml:1:2: error: unknown escape character: \\x00\\x7f");
}

TEST(Diagnostic, WithoutPositionOrKey) {
  const Diagnostic diagnostic{{"s.yaml", 0, 0}, "", "cannot read scenario file: No such file or directory", ""};
  EXPECT_EQ(diagnostic.format(), "s.yaml: error: cannot read scenario file: No such file or directory");
}

TEST(DiagnosticSink, ReportsEveryProblemAtOnce) {
  DiagnosticSink sink;
  EXPECT_NO_THROW(sink.throw_if_any());
  sink.error({"f", 1, 1}, "a", "first");
  sink.error({"f", 2, 3}, "b", "second");
  try {
    sink.throw_if_any();
    FAIL();
  } catch (const InputError& error) {
    EXPECT_EQ(error.diagnostics().size(), 2U);
    EXPECT_STREQ(error.what(), "f:1:1: error: a: first\nf:2:3: error: b: second");
  }
}

}  // namespace
}  // namespace dtsim::core
