#include "sim/scenario/yaml_map.hpp"

#include "sim/core/name_match.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace dtsim::scenario {
namespace {

core::SourcePosition position_of(const YAML::Node& node, const std::string& file) {
  const YAML::Mark mark = node.Mark();
  // yaml-cpp marks are 0-based and -1 when unknown.
  if (mark.line < 0) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return fmt::format("\"{}\"", node.Scalar());
    default: return "an undefined value";
  }
}

}  // namespace

YamlMap::YamlMap(const YAML::Node& node, std::string path, std::string file, core::DiagnosticSink& sink)
    : node_(node), path_(std::move(path)), file_(std::move(file)), sink_(&sink), fallback_{file_, 0, 0} {
  valid_ = node_.IsMap();
}

core::SourcePosition YamlMap::where() const {
  const core::SourcePosition own = position_of(node_, file_);
  return own.line > 0 ? own : fallback_;
}

core::SourcePosition YamlMap::where(const std::string& key) const {
  if (valid_) {
    if (const YAML::Node value = node_[key]; value) return position_of(value, file_);
  }
  return where();
}

bool YamlMap::has(const std::string& key) const { return valid_ && node_[key]; }

std::string YamlMap::dotted(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void YamlMap::error(const std::string& key, std::string message, std::string hint) {
  sink_->error(where(key), dotted(key), std::move(message), std::move(hint));
}

std::optional<YAML::Node> YamlMap::lookup(const std::string& key, bool required) {
  known_.push_back(key);
  if (!valid_) return std::nullopt;
  const YAML::Node value = std::as_const(node_)[key];
  if (!value || value.IsNull()) {
    if (required) error(key, "missing required key");
    return std::nullopt;
  }
  return value;
}

YamlMap YamlMap::map(const std::string& key, bool required) {
  const auto value = lookup(key, required);
  if (value && !value->IsMap()) {
    error(key, fmt::format("expected a mapping, got {}", describe(*value)));
    YamlMap wrong(YAML::Node(YAML::NodeType::Undefined), dotted(key), file_, *sink_);
    wrong.valid_ = false;
    wrong.fallback_ = where(key);
    return wrong;
  }
  // A missing section reads as an empty mapping, so that its defaults apply and its required keys
  // are reported at the parent's position.
  YamlMap result(value ? *value : YAML::Node(YAML::NodeType::Map), dotted(key), file_, *sink_);
  result.fallback_ = where(key);
  if (!value && required) result.valid_ = false;
  return result;
}

std::optional<std::string> YamlMap::text(const std::string& key, bool required) {
  const auto value = lookup(key, required);
  if (!value) return std::nullopt;
  if (!value->IsScalar()) {
    error(key, fmt::format("expected a string, got {}", describe(*value)));
    return std::nullopt;
  }
  return value->Scalar();
}

std::optional<std::int64_t> YamlMap::integer(const std::string& key, bool required, std::int64_t min,
                                             std::int64_t max) {
  const auto value = lookup(key, required);
  if (!value) return std::nullopt;
  std::int64_t result = 0;
  if (!value->IsScalar() || !YAML::convert<std::int64_t>::decode(*value, result)) {
    error(key, fmt::format("expected a whole number, got {}", describe(*value)));
    return std::nullopt;
  }
  if (result < min || result > max) {
    error(key, fmt::format("must be between {} and {}, got {}", min, max, result));
    return std::nullopt;
  }
  return result;
}

std::optional<double> YamlMap::number(const std::string& key, bool required, double min, double max) {
  const auto value = lookup(key, required);
  if (!value) return std::nullopt;
  double result = 0.0;
  if (!value->IsScalar() || !YAML::convert<double>::decode(*value, result) || !std::isfinite(result)) {
    error(key, fmt::format("expected a number, got {}", describe(*value)));
    return std::nullopt;
  }
  if (result < min || result > max) {
    error(key, fmt::format("must be between {} and {}, got {}", min, max, value->Scalar()));
    return std::nullopt;
  }
  return result;
}

void YamlMap::not_supported_yet(const std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    known_.push_back(key);
    if (has(key)) error(key, "not supported yet", "remove this key; this version of dtsim cannot simulate it");
  }
}

void YamlMap::reject_unknown_keys() {
  if (!valid_) return;
  for (const auto& entry : node_) {
    const auto key = entry.first.as<std::string>("");
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string hint = fmt::format("valid keys here: {}", core::join_names(known_));
    if (const auto closest = core::closest_name(key, known_)) hint = fmt::format("did you mean '{}'?", *closest);
    sink_->error(position_of(entry.first, file_), dotted(key), "unknown key", std::move(hint));
  }
}

}  // namespace dtsim::scenario
