#include "sim/plan/study_scenario.hpp"

#include "sim/checks/scenario_resolver.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/sweep.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

namespace dtsim::planner {
namespace {

/// Where the user's scenario declares `key` (a dotted path, "failures.events[0].target"), or else the nearest mapping
/// above it that it declares; the scenario file itself where it declares none of them. A default filled in is no
/// declaration: its place is the mapping's.
core::SourcePosition declared_at(const scenario::Scenario& base, const std::string& key) {
  std::string path = key.substr(0, key.find('['));
  while (!path.empty()) {
    const core::ConfigNode* node = core::find_dotted(base.resolved, path);
    if (node != nullptr && !node->defaulted && !node->where.file.empty()) return node->where;
    const std::size_t dot = path.rfind('.');
    path = dot == std::string::npos ? "" : path.substr(0, dot);
  }
  return core::SourcePosition(base.source.string());
}

/// `problems` as the user can follow them while the study's scenario is not written at `file`: that file left out of
/// their include chains (the user's scenario is then the outermost file), and a problem at a value the file sets
/// cited where the user's scenario declares the key the point changes.
std::vector<core::Diagnostic> cited_for_user(std::vector<core::Diagnostic> problems, const std::filesystem::path& file,
                                             const scenario::Scenario& base) {
  const std::string name = file.string();
  for (core::Diagnostic& problem : problems) {
    std::vector<core::SourcePosition>& chain = problem.where.included_from;
    std::erase_if(chain, [&](const core::SourcePosition& site) { return site.file == name; });
    if (problem.where.file == name) problem.where = declared_at(base, problem.key);
  }
  return problems;
}

/// Throws `problems` once each, ordered by where they are, so that the report reads the user's scenario top to
/// bottom.
[[noreturn]] void throw_sorted(std::vector<core::Diagnostic> problems) {
  std::vector<core::Diagnostic> once;
  for (core::Diagnostic& problem : problems) {
    const bool seen =
        std::any_of(once.begin(), once.end(), [&](const core::Diagnostic& d) { return d.format() == problem.format(); });
    if (!seen) once.push_back(std::move(problem));
  }
  std::stable_sort(once.begin(), once.end(), [](const core::Diagnostic& a, const core::Diagnostic& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
  });
  throw core::InputError(std::move(once));
}

}  // namespace

scenario::ScenarioDocument read_study_scenario(const scenario::ScenarioFormat& format, const std::string& text,
                                               const std::filesystem::path& file, const scenario::Scenario& base,
                                               const std::optional<std::filesystem::path>& confine) {
  scenario::LoadOptions load;
  load.confine = confine;
  load.study_scenario = base.source;
  load.name_points = true;
  try {
    return scenario::read_scenario_document_text(format, text, file.string(), load);
  } catch (const core::InputError& error) {
    throw_sorted(cited_for_user(error.diagnostics(), file, base));
  }
}

void check_study_points(const scenario::ScenarioDocument& document, const std::filesystem::path& file,
                        const scenario::Scenario& base, const checks::Registries& registries) {
  // Each point's problems are cited for the user before they are told apart by point: the same problem at two
  // points' own generated values is then one problem at the user's line, named in both points.
  std::vector<scenario::PointProblems> found;
  for (const scenario::Scenario& point : document.points) {
    try {
      checks::check_scenario(point, registries);
    } catch (const core::InputError& error) {
      found.push_back({point.sweep_point, cited_for_user(error.diagnostics(), file, base)});
    }
  }
  if (!found.empty()) throw_sorted(scenario::named_by_point(found, document.points.size()));
}

}  // namespace dtsim::planner
