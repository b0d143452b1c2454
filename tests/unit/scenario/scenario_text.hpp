#pragma once
// Editing scenario texts in tests: each case changes one line of a valid scenario.

#include <stdexcept>
#include <string>

namespace dtsim::testing {

/// `text` with the first occurrence of `from` replaced by `to`; throws if `from` is absent, so that a
/// test can never silently run on an unedited scenario.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("test text not found: " + from);
  return text.replace(at, from.size(), to);
}

}  // namespace dtsim::testing
