#pragma once
// Input files (scenarios, includes, data, traces) are read whole into memory, so each kind has a size limit,
// and only regular files are read: a device (/dev/zero), a pipe or a folder would never end or mean nothing.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace dtsim::core {

/// Scenario files and the files they include.
inline constexpr std::uintmax_t kScenarioFileLimit = std::uintmax_t{16} << 20U;
/// Data files (tables, text corpora, traces), before decompression; a corpus inflates to at most 4 x this.
inline constexpr std::uintmax_t kDataFileLimit = std::uintmax_t{4} << 30U;

/// Why `path` cannot be read as an input file of at most `limit` bytes ("it is a folder", "it is a device,
/// not a file", "it is 20 MiB, more than the 16 MiB such a file may be", the system's reason), or empty.
std::string input_file_problem(const std::filesystem::path& path, std::uintmax_t limit);

/// The bytes of a regular file of at most `limit` bytes; std::nullopt and `reason` otherwise.
std::optional<std::string> read_input_file(const std::filesystem::path& path, std::uintmax_t limit, std::string& reason);

/// Whether `path`, with every symbolic link and `..` resolved, lies in the folder `root` (already canonical):
/// `--confine DIR` lets a scenario read only files under DIR.
bool inside_folder(const std::filesystem::path& path, const std::filesystem::path& root);

/// "16 MiB", "4 GiB", "1.5 KiB": a size for messages.
std::string describe_size(std::uintmax_t bytes);

}  // namespace dtsim::core
