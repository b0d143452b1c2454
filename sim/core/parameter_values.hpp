#pragma once
// The values of a plug-in's own parameters, as the scenario gave them: validated against the plug-in's
// declarations (sim/core/schema.hpp), defaults filled in, each with where it was written. A plug-in's
// factory reads them; nothing outside the plug-in needs to know their names.

#include "sim/core/diagnostic.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace dtsim::core {

/// A scalar read as a whole number ("42", "+7", "-3"), or nullopt.
std::optional<std::int64_t> parse_integer(const std::string& text);
/// A scalar read as a finite number ("0.5", "1e-3"), or nullopt.
std::optional<double> parse_number(const std::string& text);

class ParameterValues {
 public:
  struct Value {
    std::string text;  ///< as written (or the declared default)
    SourcePosition where;
  };

  void set(const std::string& key, std::string text, SourcePosition where);
  [[nodiscard]] bool contains(const std::string& key) const { return values_.contains(key); }
  /// The value of a declared parameter. These throw std::logic_error for a key the plug-in did not declare
  /// or a value its declaration did not allow: the schema has checked both, so either is a bug.
  [[nodiscard]] std::int64_t integer(const std::string& key) const;
  [[nodiscard]] double number(const std::string& key) const;
  [[nodiscard]] bool boolean(const std::string& key) const;
  [[nodiscard]] const std::string& text(const std::string& key) const;
  [[nodiscard]] const SourcePosition& where(const std::string& key) const;
  /// Every value, by key.
  [[nodiscard]] const std::map<std::string, Value>& values() const { return values_; }

 private:
  [[nodiscard]] const Value& value(const std::string& key) const;
  std::map<std::string, Value> values_;
};

}  // namespace dtsim::core
