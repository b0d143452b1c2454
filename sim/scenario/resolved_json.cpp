#include "sim/scenario/resolved_json.hpp"


#include <filesystem>

namespace dtsim::scenario {
namespace {

nlohmann::ordered_json scalar_json(const ConfigNode& value, const SchemaNode* schema) {
  if (schema != nullptr) {
    if (schema->kind == ValueKind::Integer) {
      if (const auto number = parse_integer(value.scalar)) return *number;
    } else if (schema->kind == ValueKind::Number) {
      if (const auto number = parse_number(value.scalar)) return *number;
    } else if (schema->kind == ValueKind::Boolean) {
      if (value.scalar == "true" || value.scalar == "false") return value.scalar == "true";
    }
  }
  return value.scalar;
}

/// The schema of the items of a list or the values of a dictionary.
const SchemaNode* element_of(const SchemaNode* schema) {
  return schema != nullptr && !schema->children.empty() &&
                 (schema->kind == ValueKind::List || schema->kind == ValueKind::Dictionary)
             ? &schema->children.front()
             : nullptr;
}

nlohmann::ordered_json to_json(const ConfigNode& node, const SchemaNode* schema) {
  switch (node.kind) {
    case ConfigNode::Kind::Null: return nullptr;
    case ConfigNode::Kind::Scalar: return scalar_json(node, schema);
    case ConfigNode::Kind::List: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const ConfigNode& item : node.items) out.push_back(to_json(item, element_of(schema)));
      return out;
    }
    case ConfigNode::Kind::Map: {
      nlohmann::ordered_json out = nlohmann::ordered_json::object();
      const bool dictionary = schema != nullptr && schema->kind == ValueKind::Dictionary;
      for (const ConfigEntry& entry : node.entries) {
        const SchemaNode* child = dictionary ? element_of(schema) : (schema != nullptr ? schema->child(entry.key) : nullptr);
        out[entry.key] = to_json(entry.value, child);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::ordered_json resolved_json(const SchemaNode& schema, const ConfigNode& tree) { return to_json(tree, &schema); }

bool names_a_file(const ConfigEntry& entry) {
  return (entry.key == "path" || entry.key == "file") && entry.value.is_scalar();
}

std::filesystem::path named_file(const ConfigEntry& entry) {
  const std::filesystem::path file(entry.value.scalar);
  if (file.is_absolute() || entry.value.where.file.empty()) return file;
  return std::filesystem::path(entry.value.where.file).parent_path() / file;
}

void absolute_file_names(ConfigNode& tree) {
  for (auto& entry : tree.entries) {
    if (names_a_file(entry) && !entry.value.where.file.empty() &&
        std::filesystem::path(entry.value.scalar).is_relative()) {
      entry.value.scalar = std::filesystem::absolute(named_file(entry)).lexically_normal().generic_string();
    }
    absolute_file_names(entry.value);
  }
  for (auto& item : tree.items) absolute_file_names(item);
}

}  // namespace dtsim::scenario
