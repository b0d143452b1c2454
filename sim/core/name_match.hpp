#pragma once
// Helping users who mistype a name: edit distance and "did you mean".

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dtsim::core {

/// Edit distance between two names: insertions, deletions, substitutions and adjacent transpositions.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `name`, if it is close enough to be a plausible typo.
std::optional<std::string> closest_name(std::string_view name, std::span<const std::string> candidates);

/// "a, b, c".
std::string join_names(std::span<const std::string> names);

}  // namespace dtsim::core
