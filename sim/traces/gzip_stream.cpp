#include "sim/traces/gzip_stream.hpp"

#include "sim/core/diagnostic.hpp"

#include <algorithm>

namespace dtsim::traces {

GzipStreamBuffer::GzipStreamBuffer(const std::filesystem::path& path)
    : path_(path), file_(gzopen(path.c_str(), "rb"), gzclose) {
  if (file_ == nullptr) {
    throw core::InputError(
        core::Diagnostic{core::SourcePosition(path.string()), "", "cannot read the trace", "check the path"});
  }
  setg(buffer_.data(), buffer_.data(), buffer_.data());
}

GzipStreamBuffer::int_type GzipStreamBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  start_ += static_cast<std::uint64_t>(egptr() - eback());
  lines_before_ += static_cast<int>(std::count(eback(), egptr(), '\n'));
  const int got = gzread(file_.get(), buffer_.data(), static_cast<unsigned>(buffer_.size()));
  int error = Z_OK;
  gzerror(file_.get(), &error);
  // zlib hands out what it could inflate, then says the stream ended early: a cut trace is no trace.
  if (got < 0 || (error != Z_OK && error != Z_STREAM_END)) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(path_.string()), "",
                                            error == Z_BUF_ERROR
                                                ? "the gzip file is truncated (it ends before its last block)"
                                                : "the file is damaged (not valid gzip data)",
                                            "export or compress the trace again"});
  }
  setg(buffer_.data(), buffer_.data(), buffer_.data() + std::max(got, 0));
  if (got <= 0) return traits_type::eof();
  return traits_type::to_int_type(*gptr());
}

std::pair<int, int> GzipStreamBuffer::position_of(std::uint64_t offset) const {
  if (offset < start_ || offset > bytes_read()) return {0, 0};
  const char* at = eback() + (offset - start_);
  const int line = lines_before_ + 1 + static_cast<int>(std::count(static_cast<const char*>(eback()), at, '\n'));
  const char* line_start = at;
  while (line_start > eback() && *(line_start - 1) != '\n') --line_start;
  // A line begun in the buffer before this one has an unknown column: name its line only.
  const bool whole_line = line_start > eback() || (start_ == 0);
  return {line, whole_line ? static_cast<int>(at - line_start) + 1 : 0};
}

}  // namespace dtsim::traces
