#pragma once
// Reads one YAML mapping key by key, checking types and ranges and reporting every problem with its
// file:line:col. Keys never asked for are reported as unknown, with the closest known key.

#include "sim/core/diagnostic.hpp"
#include "sim/core/units.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::scenario {

class YamlMap {
 public:
  /// `path` is the dotted key of this mapping ("" for the document root).
  YamlMap(const YAML::Node& node, std::string path, std::string file, core::DiagnosticSink& sink);

  /// Position of the mapping itself (used for missing keys, which have no position of their own).
  [[nodiscard]] core::SourcePosition where() const;
  /// Position of `key`'s value, or of the mapping when the key is absent.
  [[nodiscard]] core::SourcePosition where(const std::string& key) const;
  [[nodiscard]] bool has(const std::string& key) const;

  /// A nested mapping; when it is missing and `required`, reports it and returns an empty mapping.
  YamlMap map(const std::string& key, bool required);

  std::optional<std::string> text(const std::string& key, bool required);
  std::optional<std::int64_t> integer(const std::string& key, bool required, std::int64_t min, std::int64_t max);
  std::optional<double> number(const std::string& key, bool required, double min, double max);
  /// A quantity written as a string with a unit, parsed by `parse` (e.g. core::parse_bandwidth).
  template <class Q>
  std::optional<Q> quantity(const std::string& key, bool required, Q (*parse)(std::string_view));

  /// Keys that a later version will understand: present means "not supported yet", never ignored.
  void not_supported_yet(const std::vector<std::string>& keys);
  /// Reports every key that no call above asked for. Call once, after reading.
  void reject_unknown_keys();

  void error(const std::string& key, std::string message, std::string hint = {});
  [[nodiscard]] std::string dotted(const std::string& key) const;

 private:
  std::optional<YAML::Node> lookup(const std::string& key, bool required);

  YAML::Node node_;
  std::string path_;
  std::string file_;
  core::DiagnosticSink* sink_;
  core::SourcePosition fallback_;
  std::vector<std::string> known_;
  bool valid_ = true;
};

template <class Q>
std::optional<Q> YamlMap::quantity(const std::string& key, bool required, Q (*parse)(std::string_view)) {
  const auto value = text(key, required);
  if (!value) return std::nullopt;
  try {
    return parse(*value);
  } catch (const core::UnitError& unit_error) {
    error(key, unit_error.what(), unit_error.hint());
    return std::nullopt;
  }
}

}  // namespace dtsim::scenario
