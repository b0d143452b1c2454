#pragma once
// A named registry of plug-ins (topology builders, models, sync strategies, ...), looked up by the
// name used in YAML. A failed lookup lists the valid names and the closest one.

#include "sim/core/name_match.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtsim::core {

/// Raised when a name is not registered; `hint()` lists the valid names.
class UnknownNameError : public std::runtime_error {
 public:
  UnknownNameError(std::string message, std::string hint)
      : std::runtime_error(std::move(message)), hint_(std::move(hint)) {}
  [[nodiscard]] const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

/// `Factory` is whatever builds the plug-in (usually a std::function).
template <class Factory>
class Registry {
 public:
  struct Entry {
    std::string name;
    std::string description;
    Factory factory;
  };

  /// `kind` names what is registered, for messages: "topology", "model".
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  void add(std::string name, std::string description, Factory factory) {
    if (entries_.contains(name)) throw std::logic_error(fmt::format("{} '{}' registered twice", kind_, name));
    Entry entry{name, std::move(description), std::move(factory)};
    order_.push_back(name);
    entries_.emplace(std::move(name), std::move(entry));
  }

  [[nodiscard]] const Entry& find(const std::string& name) const {
    const auto it = entries_.find(name);
    if (it != entries_.end()) return it->second;
    const std::vector<std::string> valid = names();
    std::string hint = fmt::format("valid {} names: {}", kind_, join_names(valid));
    if (const auto closest = closest_name(name, valid)) hint = fmt::format("did you mean '{}'? ", *closest) + hint;
    throw UnknownNameError(fmt::format("unknown {} '{}'", kind_, name), std::move(hint));
  }

  [[nodiscard]] bool contains(const std::string& name) const { return entries_.contains(name); }

  /// Registered names in alphabetical order.
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }

  /// Registered names in the order they were added (the order a reference lists them in).
  [[nodiscard]] const std::vector<std::string>& registration_order() const { return order_; }

  [[nodiscard]] const std::map<std::string, Entry>& entries() const { return entries_; }
  [[nodiscard]] const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;
};

}  // namespace dtsim::core
