#pragma once
// A file read as a stream, inflated when it is gzip-compressed: a profiler's trace can be gigabytes of JSON,
// which is parsed as it is read rather than held whole.

#include <zlib.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <streambuf>
#include <string>

namespace dtsim::traces {

/// Reads `path` through zlib (plain files pass through unchanged). Counts lines, so that an error at a byte
/// can be named by line and column.
class GzipStreamBuffer : public std::streambuf {
 public:
  /// Throws core::InputError naming `path` when it cannot be opened.
  explicit GzipStreamBuffer(const std::filesystem::path& path);

  /// The line and column (from 1) of byte `offset` of the inflated text, if it lies in the part read last;
  /// {0, 0} otherwise.
  [[nodiscard]] std::pair<int, int> position_of(std::uint64_t offset) const;
  /// Inflated bytes read so far.
  [[nodiscard]] std::uint64_t bytes_read() const { return start_ + static_cast<std::uint64_t>(egptr() - eback()); }

 protected:
  int_type underflow() override;

 private:
  std::filesystem::path path_;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file_;
  std::array<char, 1 << 16> buffer_{};
  std::uint64_t start_ = 0;  ///< offset of buffer_'s first byte
  int lines_before_ = 0;     ///< newlines before buffer_'s first byte
};

}  // namespace dtsim::traces
