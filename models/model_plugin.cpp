#include "models/model_plugin.hpp"

namespace dtsim::models {

core::SchemaNode dimensions_parameter() { return core::integer("dimensions", 1, 100'000, "embedding size").fallback("8"); }

std::string model_names(const ModelRegistry& registry, const std::function<bool(const ModelPlugin&)>& keep) {
  std::vector<std::string> names;
  for (const std::string& name : registry.registration_order()) {
    if (keep(registry.find(name).factory)) names.push_back(name);
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return out;
}

}  // namespace dtsim::models
