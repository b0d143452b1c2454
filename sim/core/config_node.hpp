#pragma once
// A YAML document as a plain tree in which every key and value remembers the file, line and column it
// came from, so that values merged in from included files still point at their own lines.

#include "sim/core/diagnostic.hpp"
#include "sim/core/parameter_values.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::core {

struct ConfigEntry;

struct ConfigNode {
  enum class Kind { Null, Scalar, List, Map };

  Kind kind = Kind::Null;
  std::string scalar;                ///< Scalar only: the text as written, without quotes
  std::vector<ConfigNode> items;     ///< List only
  std::vector<ConfigEntry> entries;  ///< Map only, in the order written
  SourcePosition where;        ///< where the value starts
  bool defaulted = false;            ///< filled in from the schema's default, not written by the user
  std::string note;                  ///< why a default resolved as it did, which `dtsim explain` prints

  static ConfigNode make_scalar(std::string text, SourcePosition where);
  static ConfigNode make_map(SourcePosition where);

  [[nodiscard]] bool is_scalar() const { return kind == Kind::Scalar; }
  [[nodiscard]] bool is_map() const { return kind == Kind::Map; }
  [[nodiscard]] bool is_list() const { return kind == Kind::List; }
  [[nodiscard]] bool is_null() const { return kind == Kind::Null; }

  /// The value under `key` of a mapping, or nullptr.
  [[nodiscard]] const ConfigNode* find(std::string_view key) const;
  [[nodiscard]] ConfigNode* find(std::string_view key);
  /// The entry for `key` of a mapping (key position included), or nullptr.
  [[nodiscard]] const ConfigEntry* find_entry(std::string_view key) const;
  /// Sets `key` of a mapping, replacing its value or appending a new entry at `key_where`.
  void set(const std::string& key, ConfigNode value, const SourcePosition& key_where);
  /// Removes `key` from a mapping when present.
  void erase(std::string_view key);
};

struct ConfigEntry {
  std::string key;
  SourcePosition key_where;
  ConfigNode value;
};

/// "a mapping", "a list", "nothing" or the quoted scalar: for "expected X, got Y" messages.
std::string describe(const ConfigNode& node);

/// "a.b.c" -> {"a", "b", "c"}: the keys of a dotted path.
std::vector<std::string> split_dotted(const std::string& path);

/// The value at a dotted path through mappings, or nullptr.
const ConfigNode* find_dotted(const ConfigNode& root, const std::string& path);
ConfigNode* find_dotted(ConfigNode& root, const std::string& path);

/// Sets the value at a dotted path, creating (or replacing non-mapping values with) mappings on the way.
void set_dotted(ConfigNode& root, const std::string& path, const ConfigNode& value, const SourcePosition& where);




/// Deep equality of values (positions and `defaulted` ignored).
bool same_value(const ConfigNode& a, const ConfigNode& b);

/// Overlays `overlay` onto `base`: mappings merge key by key (recursively); anything else replaces, and so
/// does a mapping at a dotted path for which `replaced_whole` says so (a one-of group such as `training.stop`,
/// where keeping the base's other keys would add a rule the overlay did not write).
void merge_into(ConfigNode& base, const ConfigNode& overlay,
                const std::function<bool(const std::string&)>& replaced_whole = {}, const std::string& path = "");

}  // namespace dtsim::core
