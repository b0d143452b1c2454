#include "sim/scenario/sweep.hpp"

#include "sim/core/name_match.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/scenario/schema_validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace dtsim::scenario {
namespace {

struct Axis {
  std::string path;
  core::SourcePosition where;
  std::vector<ConfigNode> values;
};

void collect_paths(const SchemaNode& map, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& child : map.children) {
    const std::string path = dotted_key(prefix, child.key);
    if (child.kind == ValueKind::Map) {
      collect_paths(child, path, out);
    } else if (child.is_scalar()) {
      out.push_back(path);
    }
  }
}

/// A list key's items joined by `separator`.
std::string joined(const ConfigNode& value, const char* separator) {
  std::string out;
  for (const ConfigNode& item : value.items) out += (out.empty() ? "" : separator) + item.scalar;
  return out;
}

/// A value as sweep.csv shows it: a list key's value in brackets.
std::string value_text(const ConfigNode& value) { return value.is_list() ? "[" + joined(value, " ") + "]" : value.scalar; }

/// A value as a point's name shows it: a list key's items joined by '-'.
std::string label_text(const ConfigNode& value) { return value.is_list() ? joined(value, "-") : value.scalar; }

/// Whether two values of one axis mean the same: 0.1 and 0.10, or "1Gbps" and "1000Mbps", are one point.
bool same_value(const SchemaNode& target, const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (target.kind == ValueKind::Quantity) {
    try {
      return core::parse_quantity(target.unit, a) == core::parse_quantity(target.unit, b);
    } catch (const core::UnitError&) {
      return false;
    }
  }
  const auto x = core::parse_number(a);
  const auto y = core::parse_number(b);
  return x && y && *x == *y;
}

/// A value as same_value compares it: a quantity or a number by what it parses to, other text as written.
std::string value_meaning(const SchemaNode& target, const std::string& text) {
  if (target.kind == ValueKind::Quantity) {
    try {
      return fmt::format("{}", core::parse_quantity(target.unit, text));
    } catch (const core::UnitError&) {
      return text;
    }
  }
  if (const auto number = core::parse_number(text)) return fmt::format("{}", *number);
  return text;
}

/// An axis's values under cartesian combination: each once. Under zip a value may come back, paired with
/// other values of the other axes; two whole points that are the same are refused by their names.
bool check_axis(const SchemaNode& schema, const ConfigEntry& entry, bool zip, core::DiagnosticSink& sink) {
  // A list key (training.parallelism.placement) is swept too, each of its values a list.
  const auto list_key = [](const SchemaNode& node) {
    return node.kind == ValueKind::List && !node.children.empty() && node.children.front().is_scalar();
  };
  const std::string key = dotted_key("sweep.axes", entry.key);
  static const std::set<std::string> unsweepable{"name", "include"};
  if (unsweepable.contains(entry.key) || entry.key.starts_with("sweep.") || entry.key == "sweep") {
    sink.error(entry.key_where, key, fmt::format("'{}' cannot be swept", entry.key),
               "every point keeps the scenario's name and adds its axis values to it");
    return false;
  }
  const SchemaNode* target = find_schema(schema, entry.key);
  if (target == nullptr) {
    const std::vector<std::string> paths = sweepable_paths(schema);
    std::string hint = "write the dotted path of a scalar key, such as training.optimizer.learning_rate";
    if (const auto closest = core::closest_name(entry.key, paths)) hint = fmt::format("did you mean '{}'?", *closest);
    sink.error(entry.key_where, key, fmt::format("no scenario key has the path '{}'", entry.key), hint);
    return false;
  }
  const bool listed = list_key(*target);
  if (!target->is_scalar() && !listed) {
    std::string hint = "sweep a single value";
    if (target->kind == ValueKind::Map && !target->children.empty()) {
      hint = fmt::format("sweep one of its keys, such as {}.{}", entry.key, target->children.front().key);
    }
    sink.error(entry.key_where, key, fmt::format("'{}' holds {}, not a single value", entry.key, expected_value(*target)),
               hint);
    return false;
  }
  if (entry.value.items.empty()) {
    sink.error(entry.value.where, key, "an axis needs at least one value");
    return false;
  }
  for (const ConfigNode& value : entry.value.items) {
    if (value.is_list() == listed) continue;
    sink.error(value.where, key,
               listed ? fmt::format("'{}' holds a list, and each of its values is one: got {}", entry.key, describe(value))
                      : fmt::format("'{}' holds a single value, and a value of it is {}", entry.key, describe(value)),
               listed ? "write each value as a list in brackets, such as [tensor, pipeline, data]"
                      : "write the value itself; a list of values belongs to sweep.axes");
    return false;
  }
  for (std::size_t i = 0; i < entry.value.items.size() && !zip; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const std::string value = value_text(entry.value.items[i]);
      const std::string earlier = value_text(entry.value.items[j]);
      if (!same_value(*target, value, earlier)) continue;
      sink.error(entry.value.items[i].where, fmt::format("{}[{}]", key, i),
                 value == earlier ? fmt::format("the value {} appears twice", value)
                                  : fmt::format("the value {} is {} again", value, earlier),
                 "give each value once");
      return false;
    }
  }
  return true;
}

/// A path through a list (`stragglers.0.slowdown`) must name an item the scenario declares.
bool check_list_items(const ConfigNode& document, const ConfigEntry& entry, core::DiagnosticSink& sink) {
  const ConfigNode* node = &document;
  std::string walked;
  for (const auto& key : split_dotted(entry.key)) {
    if (node == nullptr) return true;
    if (node->is_list()) {
      const auto index = parse_integer(key).value_or(0);
      if (index < 0 || static_cast<std::size_t>(index) >= node->items.size()) {
        sink.error(entry.key_where, dotted_key("sweep.axes", entry.key),
                   fmt::format("'{}' has {} item{}, so no item {}", walked, node->items.size(),
                               node->items.size() == 1 ? "" : "s", index),
                   "declare the item in the scenario; the axis sets one key of it");
        return false;
      }
      node = &node->items[static_cast<std::size_t>(index)];
    } else {
      node = node->is_map() ? node->find(key) : nullptr;
    }
    walked = dotted_key(walked, key);
  }
  return true;
}

std::string label_value(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '-' || c == '_';
    out += plain ? c : '_';
  }
  return out;
}

/// Axis names in labels: the last path component, or the whole path where two axes share it.
std::vector<std::string> axis_names(const std::vector<Axis>& axes) {
  std::vector<std::string> leaves;
  leaves.reserve(axes.size());
  for (const auto& axis : axes) leaves.push_back(axis.path.substr(axis.path.rfind('.') + 1));
  std::vector<std::string> names;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const bool shared = std::count(leaves.begin(), leaves.end(), leaves[i]) > 1;
    names.push_back(shared ? axes[i].path : leaves[i]);
  }
  return names;
}

/// Under zip, every axis has as many values as the first.
bool zip_lengths_match(const std::vector<Axis>& axes, core::DiagnosticSink& sink) {
  bool matched = true;
  for (const auto& axis : axes) {
    if (axis.values.size() == axes.front().values.size()) continue;
    sink.error(axis.where, dotted_key("sweep.axes", axis.path),
               fmt::format("has {} values but {} has {}; zip pairs values up one to one", axis.values.size(),
                           axes.front().path, axes.front().values.size()),
               "give every axis the same number of values, or use combine: cartesian");
    matched = false;
  }
  return matched;
}

/// The sweep's points, counted without overflow: a grid of many long axes is refused, never wrapped around.
std::optional<std::size_t> point_count(const std::vector<Axis>& axes, bool zip, const ConfigEntry& sweep,
                                       core::DiagnosticSink& sink) {
  std::size_t count = 1;
  bool overflow = false;
  for (const auto& axis : axes) {
    if (zip) {
      count = axis.values.size();
    } else {
      overflow = overflow || __builtin_mul_overflow(count, axis.values.size(), &count);
    }
  }
  if (overflow || count > kSweepPointLimit) {
    std::string sizes;
    for (const auto& axis : axes) sizes += (sizes.empty() ? "" : " x ") + std::to_string(axis.values.size());
    sink.error(sweep.key_where, "sweep",
               fmt::format("the sweep has {} points ({}), more than the {} one sweep may have",
                           overflow ? "too many" : std::to_string(count), zip ? "zip" : sizes, kSweepPointLimit),
               "split it over several scenario files, each sweeping part of the values");
    return std::nullopt;
  }
  return count;
}

}  // namespace

namespace {

/// Point `index`'s keys and values as axes: a new axis for each key the first point names, a value for each
/// key every point names. False (with the problem in `sink`) when the point is not a mapping of single values
/// with the first point's keys.
bool add_point(const ConfigNode& point, std::size_t index, ConfigNode& axes, core::DiagnosticSink& sink) {
  const std::string key = fmt::format("sweep.points[{}]", index);
  if (!point.is_map() || point.entries.empty()) {
    sink.error(point.where, key,
               fmt::format("a point is a mapping of dotted paths to values, got {}",
                           point.is_map() ? "an empty mapping" : describe(point)),
               "for example `{training.parallelism.tensor: 8, training.parallelism.pipeline: 4}`");
    return false;
  }
  for (const ConfigEntry& entry : point.entries) {
    ConfigNode* axis = axes.find(entry.key);
    if (!entry.value.is_scalar() && !is_scalar_list(entry.value)) {
      sink.error(entry.value.where, dotted_key(key, entry.key),
                 fmt::format("a point gives each path one value, got {}", describe(entry.value)),
                 "write the value itself; a list of values belongs to sweep.axes");
      return false;
    }
    if (axis == nullptr && index > 0) {
      sink.error(entry.key_where, dotted_key(key, entry.key),
                 fmt::format("the first point does not set '{}', and every point sets the same keys", entry.key),
                 "set it in every point (to the scenario's own value where it does not change)");
      return false;
    }
    if (axis == nullptr) {
      ConfigNode values;
      values.kind = ConfigNode::Kind::List;
      values.where = entry.value.where;
      axes.set(entry.key, std::move(values), entry.key_where);
      axis = axes.find(entry.key);
    }
    axis->items.push_back(entry.value);
  }
  for (const ConfigEntry& axis : axes.entries) {
    if (axis.value.items.size() == index + 1) continue;
    sink.error(point.where, key, fmt::format("the point does not set '{}', which the first point sets", axis.key),
               "every point sets the same keys");
    return false;
  }
  return true;
}

}  // namespace

void points_as_axes(ConfigNode& document, core::DiagnosticSink& sink) {
  ConfigNode* sweep = document.is_map() ? document.find("sweep") : nullptr;
  const ConfigNode* points = sweep != nullptr && sweep->is_map() ? sweep->find("points") : nullptr;
  if (points == nullptr) return;
  const std::size_t errors_before = sink.size();
  for (const char* other : {"axes", "combine"}) {
    if (const ConfigEntry* beside = sweep->find_entry(other); beside != nullptr) {
      sink.error(beside->key_where, fmt::format("sweep.{}", other),
                 fmt::format("a sweep of points names every value of every point itself; '{}' does not go beside them", other),
                 "give either points or axes (with combine)");
    }
  }
  if (!points->is_list() || points->items.empty()) {
    // An empty list is still a list: name what is missing rather than the kind of value.
    const std::string got = points->is_list() ? "an empty list" : describe(*points);
    sink.error(points->where, "sweep.points", fmt::format("expected a list of points, got {}", got),
               "for example `- {training.parallelism.tensor: 8, training.parallelism.pipeline: 4}`");
  }
  ConfigNode axes = ConfigNode::make_map(points->where);
  for (std::size_t i = 0; sink.size() == errors_before && points->is_list() && i < points->items.size(); ++i) {
    static_cast<void>(add_point(points->items[i], i, axes, sink));
  }
  const core::SourcePosition where = sweep->find_entry("points")->key_where;
  sweep->erase("points");
  if (sink.size() != errors_before) {
    document.erase("sweep");  // reported: nothing more to say of it
    return;
  }
  sweep->set("axes", std::move(axes), where);
  sweep->set("combine", ConfigNode::make_scalar("zip", where), where);
}

std::vector<std::string> sweepable_paths(const SchemaNode& schema) {
  std::vector<std::string> out;
  collect_paths(schema, "", out);
  std::erase_if(out, [](const std::string& path) { return path == "name" || path.starts_with("sweep."); });
  return out;
}

std::vector<SweepPoint> expand_sweep(const SchemaNode& schema, const ConfigNode& document, core::DiagnosticSink& sink) {
  const ConfigEntry* sweep = document.is_map() ? document.find_entry("sweep") : nullptr;
  if (sweep == nullptr) return {SweepPoint{"", document, {}}};
  const std::size_t errors_before = sink.size();
  const ConfigNode checked = validate_against(sweep->value, *schema.child("sweep"), "sweep", sink);
  if (sink.size() != errors_before) return {};

  const ConfigNode* given = checked.find("axes");
  if (given == nullptr) {
    sink.error(sweep->value.where, "sweep", "a sweep needs axes or points",
               "for example `axes: {training.optimizer.learning_rate: [0.1, 0.5]}`");
    return {};
  }
  const ConfigNode* combine = checked.find("combine");
  const bool zip = combine != nullptr && combine->scalar == "zip";
  std::vector<Axis> axes;
  bool valid = true;
  for (const auto& entry : given->entries) {
    if (!check_axis(schema, entry, zip, sink) || !check_list_items(document, entry, sink)) {
      valid = false;
      continue;
    }
    axes.push_back(Axis{entry.key, entry.key_where, entry.value.items});
  }
  if (!valid) return {};
  if (axes.empty()) {
    sink.error(given->where, "sweep.axes", "a sweep needs at least one axis",
               "for example `training.optimizer.learning_rate: [0.1, 0.5]`");
    return {};
  }
  if (zip && !zip_lengths_match(axes, sink)) return {};
  const std::optional<std::size_t> counted = point_count(axes, zip, *sweep, sink);
  if (!counted) return {};
  const std::size_t count = *counted;
  const std::vector<std::string> names = axis_names(axes);
  ConfigNode base = document;
  base.erase("sweep");
  std::vector<SweepPoint> points;
  std::set<std::string> labels;
  // Under zip, points whose values are spelled apart but mean the same (0.1 and 0.10) would run one simulation
  // twice under two names: each point's meaning, with the first point that had it.
  std::map<std::vector<std::string>, std::string> meanings;
  for (std::size_t index = 0; index < count; ++index) {
    SweepPoint point{"", base, {}};
    std::size_t rest = index;
    std::vector<std::size_t> picks(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
      picks[a] = zip ? index : rest % axes[a].values.size();
      if (!zip) rest /= axes[a].values.size();
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const ConfigNode& value = axes[a].values[picks[a]];
      set_dotted(point.document, axes[a].path, value, axes[a].where);
      if (!point.label.empty()) point.label += ',';
      point.label += names[a] + "=" + label_value(label_text(value));
      point.values.push_back(value_text(value));
    }
    if (!labels.insert(point.label).second) {
      sink.error(sweep->key_where, "sweep", fmt::format("two points would both be named '{}'", point.label),
                 zip ? "each point once: zipped axes repeat a value only beside different values of another axis"
                     : "sweep values that differ only in punctuation get the same name; change one");
      return {};
    }
    std::vector<std::string> meaning;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      meaning.push_back(value_meaning(*find_schema(schema, axes[a].path), point.values[a]));
    }
    if (const auto [earlier, fresh] = meanings.emplace(std::move(meaning), point.label); !fresh) {
      sink.error(sweep->key_where, "sweep",
                 fmt::format("the point '{}' is the point '{}' again: their values mean the same", point.label,
                             earlier->second),
                 "give each point once");
      return {};
    }
    points.push_back(std::move(point));
  }
  return points;
}

std::vector<core::Diagnostic> named_by_point(const std::vector<PointProblems>& found, std::size_t points) {
  // A problem is the same in two points where it says the same at the same place, as a DiagnosticSink keeps it once.
  const auto same = [](const core::Diagnostic& a, const core::Diagnostic& b) {
    return a.where.file == b.where.file && a.where.line == b.where.line && a.where.column == b.where.column &&
           a.key == b.key && a.message == b.message;
  };
  std::vector<core::Diagnostic> problems;
  std::vector<std::vector<std::string>> labels;  // per problem, the points it is in
  for (const PointProblems& point : found) {
    for (const core::Diagnostic& problem : point.problems) {
      const auto seen = std::find_if(problems.begin(), problems.end(), [&](const auto& p) { return same(p, problem); });
      if (seen == problems.end()) {
        problems.push_back(problem);
        labels.push_back({point.label});
      } else {
        labels[static_cast<std::size_t>(seen - problems.begin())].push_back(point.label);
      }
    }
  }
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const std::vector<std::string>& in = labels[i];
    if (in.front().empty()) continue;  // a document without a sweep: its one point has no name
    const std::string note =
        in.size() == 1        ? fmt::format("in sweep point {}", in.front())
        : in.size() == points ? fmt::format("in every sweep point ({}), such as {}", points, in.front())
                              : fmt::format("in {} of the {} sweep points, such as {}", in.size(), points, in.front());
    std::string& hint = problems[i].hint;
    hint = hint.empty() ? note : hint + " (" + note + ")";
  }
  return problems;
}

}  // namespace dtsim::scenario
