#include "sim/scenario/scenario_reader.hpp"

#include "sim/scenario/job_reader.hpp"

#include "sim/scenario/resolved_json.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/schema_validator.hpp"
#include "sim/scenario/sweep.hpp"

#include "sim/core/input_file.hpp"
#include "sim/core/name_match.hpp"
#include "sim/core/parameter_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace dtsim::scenario {
namespace {

/// Drops defaults that not every point shares (a default that only applies to some points' values).
void keep_shared_defaults(ConfigNode& node, const std::vector<const ConfigNode*>& others) {
  std::erase_if(node.entries, [&](ConfigEntry& entry) {
    std::vector<const ConfigNode*> matching;
    for (const ConfigNode* other : others) {
      const ConfigNode* value = other == nullptr ? nullptr : other->find(entry.key);
      if (entry.value.defaulted && (value == nullptr || !same_value(*value, entry.value))) return true;
      matching.push_back(value);
    }
    if (entry.value.is_map()) keep_shared_defaults(entry.value, matching);
    return false;
  });
}

void restore_path(ConfigNode& root, const ConfigNode& original, const std::string& path) {
  if (const ConfigNode* written = find_dotted(original, path)) {
    set_dotted(root, path, *written, written->where);
    return;
  }
  const std::size_t dot = path.rfind('.');
  ConfigNode* parent = dot == std::string::npos ? &root : find_dotted(root, path.substr(0, dot));
  if (parent != nullptr) parent->erase(path.substr(dot + 1));
}

ConfigNode resolve_for_explain(const SchemaNode& schema, const ConfigNode& merged, const std::vector<ConfigNode>& validated) {
  ConfigNode resolved = validated.front();
  const ConfigEntry* sweep = merged.find_entry("sweep");
  if (sweep == nullptr) return resolved;
  std::vector<const ConfigNode*> others;
  others.reserve(validated.size());
  for (const auto& point : validated) others.push_back(&point);
  keep_shared_defaults(resolved, others);
  core::DiagnosticSink ignored;
  ConfigNode checked = validate_against(sweep->value, *schema.child("sweep"), "sweep", ignored);
  if (const ConfigNode* axes = checked.find("axes"); axes != nullptr) {
    for (const auto& axis : axes->entries) restore_path(resolved, merged, axis.key);
  }
  resolved.entries.push_back(ConfigEntry{"sweep", sweep->key_where, std::move(checked)});
  return resolved;
}

/// Whether `path` (list items by index: stragglers.0.slowdown) names a value written in `document`.
bool written(const ConfigNode& document, const std::string& path) {
  const ConfigNode* node = &document;
  for (const std::string& key : core::split_dotted(path)) {
    if (node->is_list()) {
      const auto index = core::parse_integer(key);
      if (!index || *index < 0 || static_cast<std::size_t>(*index) >= node->items.size()) return false;
      node = &node->items[static_cast<std::size_t>(*index)];
    } else {
      node = node->find(key);
      if (node == nullptr) return false;
    }
  }
  return true;
}

/// A value the sweep replaces at every point is checked all the same: `workers: [1, 2]` or `rate: 1` under a
/// swept key is a mistake the user will meet once the sweep is gone.
void check_replaced_values(const SchemaNode& schema, const ConfigNode& merged, core::DiagnosticSink& sink) {
  const ConfigNode* sweep = merged.find("sweep");
  const ConfigNode* axes = sweep != nullptr && sweep->is_map() ? sweep->find("axes") : nullptr;
  if (axes == nullptr || !axes->is_map()) return;
  ConfigNode base = merged;
  base.erase("sweep");
  core::DiagnosticSink problems;
  core::DiagnosticSink unsupported;
  validate_scenario_document(schema, base, problems, &unsupported);
  for (const core::Diagnostic& problem : problems.diagnostics()) {
    // Problems name list items as `stragglers[0].slowdown`, axes as `stragglers.0.slowdown`.
    std::string key;
    for (const char c : problem.key) {
      if (c != ']') key += c == '[' ? '.' : c;
    }
    for (const ConfigEntry& axis : axes->entries) {
      const bool at_axis = key == axis.key || key.rfind(axis.key + ".", 0) == 0;
      if (!at_axis || !written(base, axis.key)) continue;
      const std::string note = "the sweep replaces this value at every point, and it must still be valid";
      sink.error(problem.where, problem.key, problem.message,
                 problem.hint.empty() ? note + ": correct it or leave it out" : problem.hint + " (" + note + ")");
    }
  }
}

[[noreturn]] void no_such_point(const std::string& source, const std::string& label,
                                const std::vector<SweepPoint>& points) {
  std::vector<std::string> labels;
  for (const auto& point : points) labels.push_back(point.label);
  core::Diagnostic diagnostic;
  diagnostic.where.file = source;
  diagnostic.message = fmt::format("the scenario has no sweep point '{}'", label);
  diagnostic.hint = labels.size() == 1 && labels.front().empty() ? "this scenario has no sweep"
                                                                 : "its points are: " + core::join_names(labels);
  throw core::InputError(std::move(diagnostic));
}

/// Every file name the tree holds (`path` and `file` keys, relative to the file that wrote them) that lies
/// outside `root`, reported at its value: checked before any of them (a trace) is read.
void check_confined(const ConfigNode& tree, const std::filesystem::path& root, core::DiagnosticSink& sink,
                    const std::string& path = "") {
  for (const ConfigEntry& entry : tree.entries) {
    const ConfigNode& value = entry.value;
    const std::string key = dotted_key(path, entry.key);
    if (names_a_file(entry) && !value.scalar.empty() && !core::inside_folder(named_file(entry), root)) {
      sink.error(value.where, key,
                 fmt::format("'{}' is outside {}, the only folder this run may read (--confine)", value.scalar,
                             root.string()),
                 "keep the scenario's data and traces in its own folder");
    }
    check_confined(value, root, sink, key);
  }
  for (std::size_t i = 0; i < tree.items.size(); ++i) check_confined(tree.items[i], root, sink, fmt::format("{}[{}]", path, i));
}

ScenarioDocument read_document(const ScenarioFormat& format, const ConfigNode& merged, const std::string& source,
                               core::DiagnosticSink& sink, const std::optional<std::string>& only_point,
                               const LoadOptions& options) {
  // Text that is not YAML at all has nothing more to check.
  if (merged.is_null() && !sink.empty()) sink.throw_if_any();
  ScenarioDocument out;
  if (!merged.is_map()) {
    validate_scenario_document(format.schema(), merged, sink);
    sink.throw_if_any();
  }
  std::vector<SweepPoint> points = expand_sweep(format.schema(), merged, sink);
  check_replaced_values(format.schema(), merged, sink);
  if (only_point && sink.empty()) {
    // One point of a sweep (a sweep's child process): only that point is validated and built.
    const auto chosen = std::find_if(points.begin(), points.end(), [&](const SweepPoint& p) { return p.label == *only_point; });
    if (chosen == points.end()) no_such_point(source, *only_point, points);
    points = {*chosen};
  }
  std::vector<ConfigNode> validated;
  std::vector<PointProblems> by_point;
  for (const auto& point : points) {
    core::DiagnosticSink structural;
    core::DiagnosticSink unsupported;
    ConfigNode checked = validate_scenario_document(format.schema(), point.document, structural, &unsupported);
    if (options.confine) check_confined(checked, *options.confine, structural);
    // A document whose only fault is asking for what is not built yet is still sound enough to be
    // cross-checked, so the user hears about every problem at once.
    if (structural.empty()) {
      out.points.push_back(build_scenario(checked, format.registries(), source, point.label, structural));
      write_resolved_defaults(out.points.back(), checked);
      out.points.back().resolved = checked;
      out.points.back().sweep_values = point.values;
      absolute_file_names(out.points.back().resolved);
      read_jobs(format, point.document, source, out.points.back(), structural);
    }
    if (options.name_points) {
      by_point.push_back({point.label, structural.diagnostics()});
      by_point.back().problems.insert(by_point.back().problems.end(), unsupported.diagnostics().begin(),
                                      unsupported.diagnostics().end());
    } else {
      sink.append(structural);
      sink.append(unsupported);
    }
    validated.push_back(std::move(checked));
  }
  for (core::Diagnostic& problem : named_by_point(by_point, points.size())) {
    sink.error(std::move(problem.where), std::move(problem.key), std::move(problem.message), std::move(problem.hint));
  }
  sink.sort_by_position();
  sink.throw_if_any();
  out.resolved = resolve_for_explain(format.schema(), merged, validated);
  return out;
}

Scenario only_point(ScenarioDocument document, const std::string& source) {
  if (document.points.size() != 1) {
    core::Diagnostic diagnostic;
    diagnostic.where.file = source;
    diagnostic.key = "sweep";
    diagnostic.message = fmt::format("the file describes {} runs, one per sweep point", document.points.size());
    diagnostic.hint = "run it with `dtsim run`, which runs every point, or pick one with --point";
    throw core::InputError(std::move(diagnostic));
  }
  return std::move(document.points.front());
}

}  // namespace

ScenarioDocument read_scenario_document_file(const ScenarioFormat& format, const std::filesystem::path& path,
                                             const std::optional<std::string>& only_point, const LoadOptions& options) {
  core::DiagnosticSink sink;
  const ConfigNode merged = load_config_file(format.schema(), path, sink, options);
  return read_document(format, merged, path.string(), sink, only_point, options);
}

ScenarioDocument read_scenario_document_text(const ScenarioFormat& format, const std::string& text,
                                             const std::string& file_name, const LoadOptions& options) {
  core::DiagnosticSink sink;
  const ConfigNode merged = load_config_text(format.schema(), text, file_name, sink, options);
  return read_document(format, merged, file_name, sink, std::nullopt, options);
}

std::optional<DataSection> sound_data_section(const SchemaNode& schema, const std::filesystem::path& path,
                                              const std::vector<core::Diagnostic>& problems) {
  const auto touches_data = [](const std::string& key) {
    return key.empty() || key == "data" || key.starts_with("data.") || key == "seed" || key.starts_with("include");
  };
  if (std::any_of(problems.begin(), problems.end(), [&](const core::Diagnostic& d) { return touches_data(d.key); })) {
    return std::nullopt;
  }
  core::DiagnosticSink sink;
  const ConfigNode merged = load_config_file(schema, path, sink);
  if (!sink.empty() || !merged.is_map() || merged.find("data") == nullptr) return std::nullopt;
  if (const ConfigNode* sweep = merged.find("sweep"); sweep != nullptr && sweep->is_map()) {
    if (const ConfigNode* axes = sweep->find("axes"); axes != nullptr) {
      for (const auto& axis : axes->entries) {
        if (touches_data(axis.key)) return std::nullopt;
      }
    }
  }
  // The other sections' problems are known already; only the data section and the seed are taken.
  const ConfigNode checked = validate_scenario_document(schema, merged, sink);
  const ConfigNode* data = checked.find("data");
  if (data == nullptr || !data->is_map()) return std::nullopt;
  DataSection out{.data = *data, .seed = 1};
  if (const ConfigNode* seed = checked.find("seed"); seed != nullptr && seed->is_scalar()) {
    try {
      out.seed = std::stoull(seed->scalar);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return out;
}

Scenario read_scenario_file(const ScenarioFormat& format, const std::filesystem::path& path) {
  return only_point(read_scenario_document_file(format, path), path.string());
}

Scenario read_scenario_text(const ScenarioFormat& format, const std::string& text, const std::string& file_name) {
  return only_point(read_scenario_document_text(format, text, file_name), file_name);
}

}  // namespace dtsim::scenario
