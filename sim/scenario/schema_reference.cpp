#include "sim/scenario/schema_reference.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dtsim::scenario {
namespace {

std::string type_of(const SchemaNode& node) {
  switch (node.kind) {
    case ValueKind::Map: return "mapping";
    case ValueKind::Dictionary: return "mapping of names";
    case ValueKind::List: return "list";
    case ValueKind::String: return "string";
    case ValueKind::Choice: return "name";
    case ValueKind::Integer: return "integer";
    case ValueKind::Number: return node.whole_number ? "whole number" : "number";
    case ValueKind::Boolean: return "boolean";
    case ValueKind::Quantity:
      return fmt::format("{} (`\"{}\"`)", core::family_name(node.unit), core::family_example(node.unit));
    case ValueKind::FileList: return "file or list of files";
    case ValueKind::AnyScalar: return "any value (a list of values for a list key)";
  }
  return "";
}

std::string allowed(const SchemaNode& node) {
  switch (node.kind) {
    case ValueKind::Choice: {
      std::string out;
      for (const auto& choice : node.choices) {
        if (!out.empty()) out += ", ";
        out += fmt::format("`{}`{}", choice.name, choice.planned ? " (not yet)" : "");
      }
      return out;
    }
    case ValueKind::Integer: {
      if (node.integer_max == std::numeric_limits<std::int64_t>::max()) return fmt::format("≥ {}", node.integer_min);
      return fmt::format("{} to {}", node.integer_min, node.integer_max);
    }
    case ValueKind::Number: {
      std::string low = fmt::format("{} {}", node.min_exclusive ? ">" : "≥", node.number_min);
      if (!std::isfinite(node.number_max)) return low;
      return fmt::format("{}, ≤ {}", low, node.number_max);
    }
    case ValueKind::Quantity: return node.min_exclusive ? "> 0" : "≥ 0";
    case ValueKind::Boolean: return "`true`, `false`";
    default: return "";
  }
}

std::string default_of(const SchemaNode& node) {
  if (node.required) return node.only_when.sibling.empty() ? "required" : "required when it applies";
  if (!node.default_value.empty()) return fmt::format("`{}`", node.default_value);
  return "";
}

std::string notes(const SchemaNode& node) {
  std::string out = node.description;
  if (!node.only_when.sibling.empty()) {
    std::string values;
    for (const auto& v : node.only_when.values) values += (values.empty() ? "`" : "`, `") + v;
    out += fmt::format(". Only when `{}` is {}`", node.only_when.sibling, values);
  }
  if (node.replaced_whole) out += ". An including file's value replaces an included one whole (no merging of keys)";
  if (node.planned) out = "**Not supported yet.** " + out;
  return out;
}

void rows(const SchemaNode& node, const std::string& path, std::string& out) {
  out += fmt::format("| `{}` | {} | {} | {} | {} |\n", path, type_of(node), default_of(node), allowed(node), notes(node));
  if (node.kind == ValueKind::Map) {
    for (const auto& child : node.children) rows(child, path + "." + child.key, out);
  } else if (node.kind == ValueKind::Dictionary) {
    const SchemaNode& element = node.children.front();
    if (element.kind == ValueKind::Map) {
      for (const auto& child : element.children) rows(child, path + ".<name>." + child.key, out);
    }
  } else if (node.kind == ValueKind::List) {
    const SchemaNode& item = node.children.front();
    if (item.kind == ValueKind::Map) {
      for (const auto& child : item.children) rows(child, path + "[]." + child.key, out);
    }
  }
}

}  // namespace

std::string reference_markdown(const SchemaNode& root) {
  std::string out;
  std::string top_level;
  for (const auto& section : root.children) {
    if (section.kind == ValueKind::Map || section.kind == ValueKind::List) continue;
    top_level += fmt::format("| `{}` | {} | {} | {} | {} |\n", section.key, type_of(section), default_of(section),
                             allowed(section), notes(section));
  }
  out += "### Top level\n\n| Key | Type | Default | Allowed | Description |\n|---|---|---|---|---|\n" + top_level;
  for (const auto& section : root.children) {
    if (section.kind != ValueKind::Map && section.kind != ValueKind::List) continue;
    out += fmt::format("\n### {}\n\n| Key | Type | Default | Allowed | Description |\n|---|---|---|---|---|\n",
                       section.key);
    rows(section, section.key, out);
  }
  return out;
}

}  // namespace dtsim::scenario
