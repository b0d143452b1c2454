#include "sim/core/config_node.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace dtsim::core {

ConfigNode ConfigNode::make_scalar(std::string text, SourcePosition where) {
  ConfigNode node;
  node.kind = Kind::Scalar;
  node.scalar = std::move(text);
  node.where = std::move(where);
  return node;
}

ConfigNode ConfigNode::make_map(SourcePosition where) {
  ConfigNode node;
  node.kind = Kind::Map;
  node.where = std::move(where);
  return node;
}

const ConfigEntry* ConfigNode::find_entry(std::string_view key) const {
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const ConfigEntry& entry) { return entry.key == key; });
  return it == entries.end() ? nullptr : &*it;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  const ConfigEntry* entry = find_entry(key);
  return entry == nullptr ? nullptr : &entry->value;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  return const_cast<ConfigNode*>(std::as_const(*this).find(key));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

void ConfigNode::set(const std::string& key, ConfigNode value, const SourcePosition& key_where) {
  if (ConfigNode* existing = find(key)) {
    *existing = std::move(value);
    return;
  }
  entries.push_back(ConfigEntry{key, key_where, std::move(value)});
}

void ConfigNode::erase(std::string_view key) {
  std::erase_if(entries, [&](const ConfigEntry& entry) { return entry.key == key; });
}

std::string describe(const ConfigNode& node) {
  switch (node.kind) {
    case ConfigNode::Kind::Map: return "a mapping";
    case ConfigNode::Kind::List: return "a list";
    case ConfigNode::Kind::Null: return "nothing";
    case ConfigNode::Kind::Scalar: break;
  }
  // Cut short: a value may be a whole file that was never meant to be shown (an included /etc/passwd).
  constexpr std::size_t kLongest = 40;
  return quoted_excerpt(node.scalar, kLongest);
}

std::vector<std::string> split_dotted(const std::string& path) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = path.find('.', start);
    keys.push_back(path.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return keys;
    start = end + 1;
  }
}

const ConfigNode* find_dotted(const ConfigNode& root, const std::string& path) {
  const ConfigNode* node = &root;
  for (const auto& key : split_dotted(path)) {
    node = node->find(key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

ConfigNode* find_dotted(ConfigNode& root, const std::string& path) {
  return const_cast<ConfigNode*>(find_dotted(std::as_const(root), path));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

void set_dotted(ConfigNode& root, const std::string& path, const ConfigNode& value, const SourcePosition& where) {
  const std::vector<std::string> keys = split_dotted(path);
  ConfigNode* node = &root;
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    if (node->is_list()) {
      // An existing item, by index (expand_sweep checks that it exists).
      node = &node->items.at(static_cast<std::size_t>(parse_integer(keys[i]).value_or(0)));
      continue;
    }
    ConfigNode* next = node->find(keys[i]);
    if (next == nullptr || (!next->is_map() && !next->is_list())) {
      node->set(keys[i], ConfigNode::make_map(where), where);
      next = node->find(keys[i]);
    }
    node = next;
  }
  node->set(keys.back(), value, where);
}

bool same_value(const ConfigNode& a, const ConfigNode& b) {
  if (a.kind != b.kind || a.scalar != b.scalar || a.items.size() != b.items.size() ||
      a.entries.size() != b.entries.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    if (!same_value(a.items[i], b.items[i])) return false;
  }
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    if (a.entries[i].key != b.entries[i].key || !same_value(a.entries[i].value, b.entries[i].value)) return false;
  }
  return true;
}

void merge_into(ConfigNode& base, const ConfigNode& overlay, const std::function<bool(const std::string&)>& replaced_whole,
                const std::string& path) {
  if (!base.is_map() || !overlay.is_map() || (!path.empty() && replaced_whole && replaced_whole(path))) {
    base = overlay;
    return;
  }
  for (const auto& entry : overlay.entries) {
    // `key: null` (or `key:` alone) takes out what an earlier file set, defaults applying again.
    if (entry.value.is_null() && base.find(entry.key) != nullptr) {
      base.erase(entry.key);
      continue;
    }
    if (ConfigNode* existing = base.find(entry.key)) {
      merge_into(*existing, entry.value, replaced_whole, path.empty() ? entry.key : path + "." + entry.key);
    } else {
      base.entries.push_back(entry);
    }
  }
}

}  // namespace dtsim::core
