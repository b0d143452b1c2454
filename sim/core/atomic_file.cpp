#include "sim/core/atomic_file.hpp"

#include "sim/core/result_folder.hpp"

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
    if (!out) throw_write_error(path, std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      const int reason = errno;
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw_write_error(path, std::strerror(reason));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw_write_error(path, error.message());
  }
}

}  // namespace dtsim::core
