#include "sim/core/input_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace dtsim::core {

std::string describe_size(std::uintmax_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.3g} {}", value, kUnits[unit]);
}

std::string input_file_problem(const std::filesystem::path& path, std::uintmax_t limit) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return std::strerror(errno);
  if (S_ISDIR(status.st_mode)) return "it is a folder, not a file";
  if (S_ISCHR(status.st_mode) || S_ISBLK(status.st_mode)) return "it is a device, not a file";
  if (S_ISFIFO(status.st_mode) || S_ISSOCK(status.st_mode)) return "it is a pipe or a socket, not a file";
  if (!S_ISREG(status.st_mode)) return "it is not a regular file";
  if (static_cast<std::uintmax_t>(status.st_size) > limit) {
    return fmt::format("it is {} bytes, more than the {} such a file may be", status.st_size, describe_size(limit));
  }
  return {};
}

bool inside_folder(const std::filesystem::path& path, const std::filesystem::path& root) {
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path), error);
  if (error) return false;
  const auto [root_end, unused] = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
  return root_end == root.end();
}

std::optional<std::string> read_input_file(const std::filesystem::path& path, std::uintmax_t limit, std::string& reason) {
  reason = input_file_problem(path, limit);
  if (!reason.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    reason = std::strerror(errno);
    return std::nullopt;
  }
  // Read to the end, not to the size stat gives: a kernel's pseudo-file (/proc/self/status) says 0 bytes and holds
  // more. A file that grows while it is read stops past the limit.
  std::string text;
  std::string block(65536, '\0');
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    text.append(block.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > limit) {
      reason = fmt::format("it holds more than the {} such a file may be", describe_size(limit));
      return std::nullopt;
    }
  }
  if (in.bad()) {
    reason = "it cannot be read to its end";
    return std::nullopt;
  }
  return text;
}

}  // namespace dtsim::core
