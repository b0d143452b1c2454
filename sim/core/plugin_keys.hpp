#pragma once
// The part of a format that plug-ins declare: a mapping whose `selector` key names a registered plug-in, and
// the parameters each plug-in declares beside it, each applying only when that plug-in is chosen. Generated
// from the registry, so the format, the JSON Schema and the reference list exactly the registered plug-ins and
// their own parameters.

#include "sim/core/registry.hpp"
#include "sim/core/schema.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtsim::core {

/// `selector` (a choice of `leading`, then of the entries `names` of `registry`, defaulting to `fallback`) and
/// every parameter those entries declare, applying when one of the entries declaring it is chosen. A key
/// declared by several entries must be declared alike (a different default would make one key mean two things).
template <class Plugin>
std::vector<SchemaNode> plugin_keys(const Registry<Plugin>& registry, const std::vector<std::string>& names,
                                    const std::string& selector, const std::string& label,
                                    const std::string& description, const std::string& fallback,
                                    std::vector<Choice> leading = {}) {
  std::vector<Choice> choices = std::move(leading);
  std::vector<SchemaNode> parameters;
  for (const std::string& name : names) {
    const auto& entry = registry.find(name);
    choices.push_back({name, entry.description});
    for (const SchemaNode& declared : entry.factory.parameters) {
      auto same = std::find_if(parameters.begin(), parameters.end(),
                               [&](const SchemaNode& p) { return p.key == declared.key; });
      if (same == parameters.end()) {
        SchemaNode node = declared;
        node.only_when = {selector, {name}};
        parameters.push_back(std::move(node));
      } else if (same->kind != declared.kind || same->default_value != declared.default_value ||
                 same->required != declared.required || same->description != declared.description) {
        throw std::logic_error(registry.kind() + " parameter '" + declared.key + "' is declared differently by '" +
                               name + "' and '" + same->only_when.values.front() + "'");
      } else {
        same->only_when.values.push_back(name);
      }
    }
  }
  std::vector<SchemaNode> keys{choice_of(selector, label, description, std::move(choices)).fallback(fallback)};
  keys.insert(keys.end(), std::make_move_iterator(parameters.begin()), std::make_move_iterator(parameters.end()));
  return keys;
}

/// plugin_keys() of every entry of `registry`, in registration order.
template <class Plugin>
std::vector<SchemaNode> plugin_keys(const Registry<Plugin>& registry, const std::string& selector,
                                    const std::string& label, const std::string& description,
                                    const std::string& fallback) {
  return plugin_keys(registry, registry.registration_order(), selector, label, description, fallback);
}

}  // namespace dtsim::core
