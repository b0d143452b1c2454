#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dtsim::core {
namespace {

std::filesystem::path fresh_folder(const std::string& name) {
  const auto folder = std::filesystem::path(DTSIM_TEST_OUTPUT_DIR) / "atomic_file" / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AtomicFile, WritesAndReplacesLeavingNoTemporary) {
  const auto folder = fresh_folder("replace");
  write_file_atomically(folder / "a.txt", "first");
  write_file_atomically(folder / "a.txt", "second");
  EXPECT_EQ(read(folder / "a.txt"), "second");
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(AtomicFile, MissingFolderIsAnErrorNamingThePath) {
  const auto folder = fresh_folder("missing");
  try {
    write_file_atomically(folder / "nowhere" / "a.txt", "x");
    FAIL();
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("nowhere"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace dtsim::core
