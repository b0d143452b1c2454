#include "sim/core/atomic_file.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/core/result_folder.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace dtsim::core {

namespace {

const char* describe_file_kind(const std::filesystem::file_status& status) {
  switch (status.type()) {
    case std::filesystem::file_type::directory: return "a folder, not a file";
    case std::filesystem::file_type::character:
    case std::filesystem::file_type::block: return "a device, not a file";
    case std::filesystem::file_type::fifo: return "a pipe, not a file";
    case std::filesystem::file_type::socket: return "a socket, not a file";
    default: return "not a regular file";
  }
}

}  // namespace

void refuse_unless_regular_file(const std::filesystem::path& path) {
  // The rename below would put a regular file in the place of whatever is there: a device (/dev/null), a
  // FIFO or a socket would be destroyed, not written. A symbolic link is replaced, never followed.
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::symlink_status(path, error);
  if (error || !std::filesystem::exists(status)) return;
  if (std::filesystem::is_regular_file(status) || std::filesystem::is_symlink(status)) return;
  Diagnostic diagnostic;
  diagnostic.where.file = path.string();
  diagnostic.message = fmt::format("is {}; dtsim writes only regular files and folders", describe_file_kind(status));
  diagnostic.hint = "name a new file, or a regular file to replace, with -o";
  throw InputError(std::move(diagnostic));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  write_file_atomically(path, [content](std::ostream& out) {
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  });
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  refuse_unless_regular_file(path);
  // The process id keeps two concurrent writers of the same folder from sharing a temporary file.
  const std::filesystem::path temporary = path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  {
    // A stale temporary of an earlier process with the same id (or anything else put there) is not opened.
    std::error_code stale;
    std::filesystem::remove(temporary, stale);
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw_write_error(path, std::strerror(errno));
    write(out);
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
