#include "sim/scenario/config_yaml.hpp"

#include <yaml-cpp/yaml.h>

namespace dtsim::scenario {
namespace {

void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.kind) {
    case ConfigNode::Kind::Null: out << YAML::Null; break;
    case ConfigNode::Kind::Scalar: out << node.scalar; break;
    case ConfigNode::Kind::List: {
      const bool flat = std::all_of(node.items.begin(), node.items.end(), [](const ConfigNode& i) { return i.is_scalar(); });
      if (flat) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& item : node.items) emit(out, item);
      out << YAML::EndSeq;
      break;
    }
    case ConfigNode::Kind::Map:
      out << YAML::BeginMap;
      for (const auto& entry : node.entries) {
        out << YAML::Key << entry.key << YAML::Value;
        emit(out, entry.value);
        if (entry.value.defaulted && entry.value.is_scalar()) {
          out << YAML::Comment(entry.value.note.empty() ? std::string("default") : "default: " + entry.value.note);
        }
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

std::string to_yaml(const ConfigNode& node) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, node);
  return std::string(out.c_str()) + "\n";
}

}  // namespace dtsim::scenario
