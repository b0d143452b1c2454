#include "sim/core/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace dtsim::core {

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  // The process id keeps two concurrent writers of the same folder from sharing a temporary file.
  const std::filesystem::path temporary = path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}: {}", temporary.string(), std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw std::runtime_error(fmt::format("cannot write {}: {}", temporary.string(), std::strerror(errno)));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(fmt::format("cannot move {} into place: {}", path.string(), error.message()));
  }
}

}  // namespace dtsim::core
