#pragma once
// Output files appear whole or not at all: written to a temporary name beside the target, then renamed.

#include <filesystem>
#include <string_view>

namespace dtsim::core {

/// Writes `content` to `path` atomically (temporary file in the same folder, then rename).
/// Throws InputError naming the path and the system's reason when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace dtsim::core
