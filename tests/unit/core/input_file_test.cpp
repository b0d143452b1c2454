#include "sim/core/input_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace dtsim::core {
namespace {

// A kernel's pseudo-file says it holds 0 bytes; it is read to its end, not to that size.
TEST(InputFile, APseudoFileIsReadToItsEnd) {
  std::string reason;
  const std::optional<std::string> text = read_input_file("/proc/self/status", 1 << 20, reason);
  ASSERT_TRUE(text.has_value()) << reason;
  EXPECT_NE(text->find("Pid:"), std::string::npos);
  const std::optional<std::string> bounded = read_input_file("/proc/self/status", 16, reason);
  EXPECT_FALSE(bounded.has_value());
  EXPECT_EQ(reason, "it holds more than the 16 B such a file may be");
}

TEST(InputFile, AFileThatCannotBeReadToItsEndIsNoText) {
  std::string reason;
  EXPECT_FALSE(read_input_file("/proc/self/mem", 1 << 20, reason).has_value());
  EXPECT_EQ(reason, "it cannot be read to its end");
}

TEST(InputFile, ARegularFileIsReadWhole) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("dtsim-input-" + std::to_string(::getpid()));
  std::ofstream(file) << std::string(100000, 'x');
  std::string reason;
  const std::optional<std::string> text = read_input_file(file, 1 << 20, reason);
  std::filesystem::remove(file);
  ASSERT_TRUE(text.has_value()) << reason;
  EXPECT_EQ(text->size(), 100000U);
}

}  // namespace
}  // namespace dtsim::core
