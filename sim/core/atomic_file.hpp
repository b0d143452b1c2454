#pragma once
// Output files appear whole or not at all: written to a temporary name beside the target, then renamed.

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

namespace dtsim::core {

/// Throws InputError when `path` exists and is neither a regular file nor a symbolic link (a folder, a device,
/// a pipe, a socket): writing there would replace it.
void refuse_unless_regular_file(const std::filesystem::path& path);

/// Writes `content` to `path` atomically (temporary file in the same folder, then rename).
/// Throws InputError naming the path and the system's reason when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Writes what `write` puts in its stream to `path` atomically, as the other: for a file larger than a string
/// should hold (a plan's millions of candidates).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace dtsim::core
