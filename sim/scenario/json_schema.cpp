#include "sim/scenario/json_schema.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dtsim::scenario {
namespace {

std::string escape_regex(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string quantity_pattern(Unit unit) {
  std::string alternatives;
  for (const auto& suffix : core::unit_suffixes(unit)) {
    if (!alternatives.empty()) alternatives += '|';
    alternatives += escape_regex(suffix);
  }
  return fmt::format("^ *[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)? *({}) *$", alternatives);
}

nlohmann::ordered_json describe_node(const SchemaNode& node) {
  nlohmann::ordered_json out;
  std::string description = node.description;
  if (node.planned) description += " (not supported yet)";
  if (!description.empty()) out["description"] = description;
  switch (node.kind) {
    case ValueKind::Map: {
      out["type"] = "object";
      nlohmann::ordered_json properties = nlohmann::ordered_json::object();
      nlohmann::ordered_json required = nlohmann::ordered_json::array();
      for (const auto& child : node.children) {
        properties[child.key] = describe_node(child);
        if (child.required && child.only_when.sibling.empty()) required.push_back(child.key);
      }
      out["properties"] = properties;
      if (!required.empty()) out["required"] = required;
      out["additionalProperties"] = false;
      break;
    }
    case ValueKind::Dictionary:
      out["type"] = "object";
      out["additionalProperties"] = describe_node(node.children.front());
      break;
    case ValueKind::List:
      out["type"] = "array";
      out["items"] = describe_node(node.children.front());
      break;
    case ValueKind::String: out["type"] = "string"; break;
    case ValueKind::Choice: out["enum"] = node.all_choices(); break;
    case ValueKind::Integer:
      out["type"] = "integer";
      if (node.integer_min != std::numeric_limits<std::int64_t>::min()) out["minimum"] = node.integer_min;
      if (node.integer_max != std::numeric_limits<std::int64_t>::max()) out["maximum"] = node.integer_max;
      break;
    case ValueKind::Number:
      out["type"] = "number";
      if (std::isfinite(node.number_min)) out[node.min_exclusive ? "exclusiveMinimum" : "minimum"] = node.number_min;
      if (std::isfinite(node.number_max)) out["maximum"] = node.number_max;
      if (node.whole_number) out["multipleOf"] = 1;
      break;
    case ValueKind::Boolean: out["type"] = "boolean"; break;
    case ValueKind::Quantity:
      out["type"] = "string";
      out["pattern"] = quantity_pattern(node.unit);
      out["examples"] = {std::string(core::family_example(node.unit))};
      break;
    case ValueKind::FileList:
      out["anyOf"] = {{{"type", "string"}}, {{"type", "array"}, {"items", {{"type", "string"}}}}};
      break;
    case ValueKind::AnyScalar:
      out["anyOf"] = {{{"type", {"string", "number", "boolean"}}},
                      {{"type", "array"}, {"items", {{"type", {"string", "number", "boolean"}}}}}};
      break;
  }
  if (!node.default_value.empty()) {
    if (node.kind == ValueKind::Integer) {
      out["default"] = std::stoll(node.default_value);
    } else if (node.kind == ValueKind::Number) {
      out["default"] = std::stod(node.default_value);
    } else if (node.kind == ValueKind::Boolean) {
      out["default"] = node.default_value == "true";
    } else {
      out["default"] = node.default_value;
    }
  }
  return out;
}

/// Moves the `required` lists of `node` and of the maps nested in it (not inside lists or dictionaries,
/// which a file replaces whole) into the returned schema, which mirrors their places.
nlohmann::ordered_json extract_required(nlohmann::ordered_json& node) {
  nlohmann::ordered_json moved = nlohmann::ordered_json::object();
  if (node.contains("required")) {
    moved["required"] = node["required"];
    node.erase("required");
  }
  if (node.contains("properties")) {
    for (auto& [key, child] : node["properties"].items()) {
      nlohmann::ordered_json nested = extract_required(child);
      if (!nested.empty()) moved["properties"][key] = nested;
    }
  }
  return moved;
}

}  // namespace

nlohmann::ordered_json to_json_schema(const SchemaNode& root) {
  nlohmann::ordered_json out;
  out["$schema"] = "http://json-schema.org/draft-07/schema#";
  out["title"] = "dtsim scenario";
  nlohmann::ordered_json body = describe_node(root);
  // A file with `include:` gets its missing keys from the included files, which an editor's schema check
  // cannot see: required keys (of the top level and of the sections, not of list items) are required only
  // of files that include nothing.
  nlohmann::ordered_json required = extract_required(body);
  if (!required.empty()) {
    out["if"] = {{"not", {{"required", {"include"}}}}};
    out["then"] = required;
  }
  for (const auto& [key, value] : body.items()) out[key] = value;
  return out;
}

}  // namespace dtsim::scenario
