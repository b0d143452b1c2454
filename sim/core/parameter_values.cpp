#include "sim/core/parameter_values.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>

namespace dtsim::core {

std::optional<std::int64_t> parse_integer(const std::string& text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_number(const std::string& text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0.0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

void ParameterValues::set(const std::string& key, std::string text, SourcePosition where) {
  values_[key] = Value{std::move(text), std::move(where)};
}

const ParameterValues::Value& ParameterValues::value(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error(fmt::format("parameter '{}' was not declared or has no value", key));
  return it->second;
}

std::int64_t ParameterValues::integer(const std::string& key) const {
  if (const auto number = parse_integer(value(key).text)) return *number;
  throw std::logic_error(fmt::format("parameter '{}' is not a whole number: {}", key, value(key).text));
}

double ParameterValues::number(const std::string& key) const {
  if (const auto number = parse_number(value(key).text)) return *number;
  throw std::logic_error(fmt::format("parameter '{}' is not a number: {}", key, value(key).text));
}

bool ParameterValues::boolean(const std::string& key) const {
  const std::string& text = value(key).text;
  if (text == "true" || text == "false") return text == "true";
  throw std::logic_error(fmt::format("parameter '{}' is not a boolean: {}", key, text));
}

const std::string& ParameterValues::text(const std::string& key) const { return value(key).text; }

const SourcePosition& ParameterValues::where(const std::string& key) const { return value(key).where; }

}  // namespace dtsim::core
