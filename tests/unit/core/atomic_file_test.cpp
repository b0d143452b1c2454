#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

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

// A writer streams what it makes (a plan's millions of candidate rows) without holding the file as one string.
TEST(AtomicFile, WritesWhatAWriterStreamsLeavingNoTemporary) {
  const auto folder = fresh_folder("streamed");
  write_file_atomically(folder / "a.csv", [](std::ostream& out) {
    for (int row = 0; row < 3; ++row) out << row << ",x\n";
  });
  EXPECT_EQ(read(folder / "a.csv"), "0,x\n1,x\n2,x\n");
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

std::string refusal(const std::filesystem::path& path) {
  try {
    write_file_atomically(path, "x");
  } catch (const InputError& error) {
    return error.what();
  }
  return "written";
}

TEST(AtomicFile, RefusesToReplaceAPipeAFolderOrADevice) {
  const auto folder = fresh_folder("not_regular");
  ASSERT_EQ(::mkfifo((folder / "pipe").c_str(), 0600), 0);
  EXPECT_EQ(refusal(folder / "pipe"),
            (folder / "pipe").string() +
                ": error: is a pipe, not a file; dtsim writes only regular files and folders\n"
                "  hint: name a new file, or a regular file to replace, with -o");
  EXPECT_TRUE(std::filesystem::is_fifo(folder / "pipe"));
  std::filesystem::create_directory(folder / "sub");
  EXPECT_NE(refusal(folder / "sub").find("is a folder, not a file"), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_directory(folder / "sub"));
  // /dev/null is refused before anything is written beside it.
  EXPECT_NE(refusal("/dev/null").find("/dev/null: error: is a device, not a file"), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

TEST(AtomicFile, ReplacesASymbolicLinkNotWhatItPointsTo) {
  const auto folder = fresh_folder("symlink");
  write_file_atomically(folder / "kept.txt", "kept");
  std::filesystem::create_symlink(folder / "kept.txt", folder / "link.txt");
  write_file_atomically(folder / "link.txt", "new");
  EXPECT_EQ(read(folder / "kept.txt"), "kept");
  EXPECT_EQ(read(folder / "link.txt"), "new");
}

}  // namespace
}  // namespace dtsim::core
