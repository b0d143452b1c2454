// CSV fields: what csv_field writes, csv_cells reads back as it was, commas and quotes included.

#include "sim/core/csv.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dtsim::core {
namespace {

TEST(CsvField, PlainTextIsLeftAsItIs) {
  EXPECT_EQ(csv_field("ring allreduce"), "ring allreduce");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("w3x4 all~lognormal"), "w3x4 all~lognormal");
}

TEST(CsvField, CommasQuotesAndLineBreaksAreQuoted) {
  EXPECT_EQ(csv_field("collectives[algorithm=ring,workers=4]"), "\"collectives[algorithm=ring,workers=4]\"");
  EXPECT_EQ(csv_field("a \"b\""), "\"a \"\"b\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(CsvCells, ReadsBackWhatCsvFieldWrote) {
  const std::vector<std::string> fields{"run[a=1,b=2]", "say \"hi\"", "", "plain", ",", "\"\""};
  std::string line;
  for (const std::string& field : fields) line += (line.empty() ? "" : ",") + csv_field(field);
  EXPECT_EQ(csv_cells(line), fields);
}

// A name a spreadsheet would run as a formula gets the apostrophe the CSV-injection guidance (OWASP) asks
// for; numbers stay numbers; reading it back gives the name.
TEST(CsvField, FormulaLikeTextIsNeutralised) {
  EXPECT_EQ(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(csv_field("+1+1"), "'+1+1");
  EXPECT_EQ(csv_field("-cmd"), "'-cmd");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field("\tx"), "'\tx");
  EXPECT_EQ(csv_field("-0.5"), "-0.5");
  EXPECT_EQ(csv_field("+2"), "+2");
  EXPECT_EQ(csv_field("'=x"), "''=x");
  EXPECT_EQ(csv_field("'plain"), "'plain");
  const std::vector<std::string> fields{"=1+1", "-x", "'=x", "''y", "'plain", "-3", "@a,b"};
  std::string line;
  for (const std::string& field : fields) line += (line.empty() ? "" : ",") + csv_field(field);
  EXPECT_EQ(csv_cells(line), fields);
}

TEST(CsvCells, SplitsOnCommasOutsideQuotesOnly) {
  EXPECT_EQ(csv_cells("a,b,,c"), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(csv_cells("\"x,y\",z"), (std::vector<std::string>{"x,y", "z"}));
  EXPECT_EQ(csv_cells(" a , b "), (std::vector<std::string>{" a ", " b "}));  // blanks are the caller's
  EXPECT_EQ(csv_cells(""), std::vector<std::string>{""});
}

}  // namespace
}  // namespace dtsim::core
