#pragma once
// Read access to a validated configuration mapping, for the readers and plug-ins that turn it into their
// own values: every value has already been checked against its declaration, so conversions succeed.

#include "sim/core/config_node.hpp"
#include "sim/core/diagnostic.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace dtsim::core {

/// A value named by the user together with where it was written, so later stages (registry lookups,
/// cross-checks against the topology) can still point at the line.
template <class T>
struct Located {
  T value{};
  SourcePosition where;
};

class View {
 public:
  View(const ConfigNode* node, std::string path) : node_(node), path_(std::move(path)) {}

  [[nodiscard]] bool has(std::string_view key) const { return node_ != nullptr && node_->find(key) != nullptr; }
  [[nodiscard]] View at(const std::string& key) const {
    return {node_ == nullptr ? nullptr : node_->find(key), path_.empty() ? key : path_ + "." + key};
  }
  /// Present and written by the user, not filled in from a default.
  [[nodiscard]] bool written(std::string_view key) const { return has(key) && !node_->find(key)->defaulted; }
  [[nodiscard]] const ConfigNode* node() const { return node_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] SourcePosition where() const { return node_ == nullptr ? SourcePosition{} : node_->where; }
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback = {}) const {
    return has(key) ? node_->find(key)->scalar : fallback;
  }
  [[nodiscard]] std::optional<std::int64_t> integer(const std::string& key) const {
    return has(key) ? parse_integer(node_->find(key)->scalar) : std::nullopt;
  }
  [[nodiscard]] std::optional<double> number(const std::string& key) const {
    return has(key) ? parse_number(node_->find(key)->scalar) : std::nullopt;
  }
  /// A key whose default the schema declares: validation filled it in, so the default is written once, in the
  /// schema. Absent only when the schema lost its default, a bug.
  [[nodiscard]] const std::string& filled_text(const std::string& key) const { return filled(key).scalar; }
  [[nodiscard]] std::int64_t filled_integer(const std::string& key) const {
    return checked(parse_integer(filled_text(key)), key);
  }
  [[nodiscard]] double filled_number(const std::string& key) const { return checked(parse_number(filled_text(key)), key); }
  [[nodiscard]] bool filled_flag(const std::string& key) const { return filled_text(key) == "true"; }
  template <class Q>
  [[nodiscard]] std::optional<Q> quantity(const std::string& key, Q (*parse)(std::string_view)) const {
    return has(key) ? std::optional<Q>(parse(node_->find(key)->scalar)) : std::nullopt;
  }
  [[nodiscard]] Located<std::string> located(const std::string& key) const {
    const ConfigNode* value = node_ == nullptr ? nullptr : node_->find(key);
    if (value == nullptr) return {std::string{}, where()};
    return {value->scalar, value->where};
  }
  [[nodiscard]] SourcePosition where(const std::string& key) const {
    const ConfigNode* value = node_ == nullptr ? nullptr : node_->find(key);
    return value == nullptr ? where() : value->where;
  }
  [[nodiscard]] SourcePosition key_where(const std::string& key) const {
    const ConfigEntry* entry = node_ == nullptr ? nullptr : node_->find_entry(key);
    return entry == nullptr ? where() : entry->key_where;
  }

 private:
  [[nodiscard]] const ConfigNode& filled(const std::string& key) const {
    const ConfigNode* value = node_ == nullptr ? nullptr : node_->find(key);
    if (value == nullptr) throw std::logic_error("'" + dotted(key) + "' has no default");
    return *value;
  }
  template <class T>
  [[nodiscard]] T checked(std::optional<T> value, const std::string& key) const {
    if (!value) throw std::logic_error("'" + dotted(key) + "' is not a valid value");
    return *value;
  }
  [[nodiscard]] std::string dotted(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const ConfigNode* node_;
  std::string path_;
};

}  // namespace dtsim::core
