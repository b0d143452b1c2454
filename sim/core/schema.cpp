#include "sim/core/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

namespace dtsim::core {
namespace {

SchemaNode make(std::string key, ValueKind kind, std::string description) {
  SchemaNode node;
  node.key = std::move(key);
  node.kind = kind;
  node.description = std::move(description);
  return node;
}

}  // namespace

SchemaNode&& SchemaNode::require() && {
  required = true;
  return std::move(*this);
}

SchemaNode&& SchemaNode::plan() && {
  planned = true;
  return std::move(*this);
}

SchemaNode&& SchemaNode::fallback(std::string yaml) && {
  default_value = std::move(yaml);
  return std::move(*this);
}

SchemaNode&& SchemaNode::when(std::string sibling, std::vector<std::string> values) && {
  only_when = Condition{std::move(sibling), std::move(values)};
  return std::move(*this);
}

SchemaNode&& SchemaNode::for_example(std::string yaml) && {
  example = std::move(yaml);
  return std::move(*this);
}

SchemaNode&& SchemaNode::exclusive_min() && {
  min_exclusive = true;
  return std::move(*this);
}

SchemaNode&& SchemaNode::whole() && {
  whole_number = true;
  return std::move(*this);
}

SchemaNode&& SchemaNode::alternatives() && {
  replaced_whole = true;
  return std::move(*this);
}

const SchemaNode* SchemaNode::child(const std::string& name) const {
  if (kind != ValueKind::Map) return nullptr;
  const auto it = std::find_if(children.begin(), children.end(), [&](const SchemaNode& c) { return c.key == name; });
  return it == children.end() ? nullptr : &*it;
}

const Choice* SchemaNode::choice(const std::string& name) const {
  const auto it = std::find_if(choices.begin(), choices.end(), [&](const Choice& c) { return c.name == name; });
  return it == choices.end() ? nullptr : &*it;
}

bool SchemaNode::is_scalar() const {
  return kind != ValueKind::Map && kind != ValueKind::Dictionary && kind != ValueKind::List &&
         kind != ValueKind::FileList;
}

std::vector<std::string> SchemaNode::supported_choices() const {
  std::vector<std::string> out;
  for (const auto& c : choices) {
    if (!c.planned) out.push_back(c.name);
  }
  return out;
}

std::vector<std::string> SchemaNode::all_choices() const {
  std::vector<std::string> out;
  out.reserve(choices.size());
  for (const auto& c : choices) out.push_back(c.name);
  return out;
}

SchemaNode map_of(std::string key, std::string description, std::vector<SchemaNode> children) {
  SchemaNode node = make(std::move(key), ValueKind::Map, std::move(description));
  node.children = std::move(children);
  return node;
}

SchemaNode dictionary_of(std::string key, std::string description, SchemaNode element) {
  SchemaNode node = make(std::move(key), ValueKind::Dictionary, std::move(description));
  node.children.push_back(std::move(element));
  return node;
}

SchemaNode list_of(std::string key, std::string description, SchemaNode item) {
  SchemaNode node = make(std::move(key), ValueKind::List, std::move(description));
  node.children.push_back(std::move(item));
  return node;
}

SchemaNode text(std::string key, std::string description) {
  return make(std::move(key), ValueKind::String, std::move(description));
}

SchemaNode choice_of(std::string key, std::string label, std::string description, std::vector<Choice> choices) {
  SchemaNode node = make(std::move(key), ValueKind::Choice, std::move(description));
  node.choice_label = std::move(label);
  node.choices = std::move(choices);
  return node;
}

SchemaNode integer(std::string key, std::int64_t min, std::int64_t max, std::string description) {
  SchemaNode node = make(std::move(key), ValueKind::Integer, std::move(description));
  node.integer_min = min;
  node.integer_max = max;
  return node;
}

SchemaNode number(std::string key, double min, double max, std::string description) {
  SchemaNode node = make(std::move(key), ValueKind::Number, std::move(description));
  node.number_min = min;
  node.number_max = max;
  return node;
}

SchemaNode boolean(std::string key, std::string description) {
  return make(std::move(key), ValueKind::Boolean, std::move(description));
}

SchemaNode quantity(std::string key, Unit unit, std::string description) {
  SchemaNode node = make(std::move(key), ValueKind::Quantity, std::move(description));
  node.unit = unit;
  node.number_min = 0.0;
  return node;
}

SchemaNode any_scalar(std::string key, std::string description) {
  return make(std::move(key), ValueKind::AnyScalar, std::move(description));
}

SchemaNode file_list(std::string key, std::string description) {
  return make(std::move(key), ValueKind::FileList, std::move(description));
}

std::string expected_value(const SchemaNode& node) {
  switch (node.kind) {
    case ValueKind::Map: return "a mapping";
    case ValueKind::Dictionary: return "a mapping of names to values";
    case ValueKind::List: return "a list";
    case ValueKind::String: return "a string";
    case ValueKind::Choice: {
      const bool vowel = !node.choice_label.empty() && std::string_view("aeiou").find(node.choice_label.front()) != std::string_view::npos;
      return fmt::format("{} {} name", vowel ? "an" : "a", node.choice_label);
    }
    case ValueKind::Integer: return "a whole number";
    case ValueKind::Number: return node.whole_number ? "a whole number" : "a number";
    case ValueKind::Boolean: return "true or false";
    case ValueKind::Quantity:
      return fmt::format("a {} such as \"{}\"", core::family_name(node.unit), core::family_example(node.unit));
    case ValueKind::FileList: return "a file name or a list of them";
    case ValueKind::AnyScalar: return "a single value (a list of them for a list key)";
  }
  return "a value";
}

}  // namespace dtsim::core
