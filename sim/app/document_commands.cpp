#include "sim/app/document_commands.hpp"

#include "sim/checks/memory_checks.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/scenario/config_yaml.hpp"
#include "sim/scenario/json_schema.hpp"
#include "sim/scenario/resolved_json.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/scenario/scenario_schema.hpp"
#include "sim/scenario/schema_reference.hpp"
#include "sim/topology/graph_statistics.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace dtsim::app {
namespace {

scenario::ScenarioDocument read_and_check(const std::filesystem::path& file, const checks::Registries& registries,
                                          const std::optional<std::filesystem::path>& confine) {
  scenario::ScenarioDocument document = checks::read_document_and_data(scenario::ScenarioFormat(registries), file,
                                                                       std::nullopt, checks::confined_load(confine));
  checks::check_every_point(document, registries);
  return document;
}

}  // namespace

ValidateResult validate_command(const std::vector<std::filesystem::path>& files, const checks::Registries& registries,
                                const std::optional<std::filesystem::path>& confine) {
  ValidateResult result;
  for (const auto& file : files) {
    try {
      const auto document = read_and_check(file, registries, confine);
      const std::size_t runs = document.points.size();
      result.report += runs == 1 ? fmt::format("{}: ok\n", file.string())
                                 : fmt::format("{}: ok ({} runs)\n", file.string(), runs);
    } catch (const core::InputError& error) {
      result.errors += fmt::format("{}\n", error.what());
      result.diagnostics.insert(result.diagnostics.end(), error.diagnostics().begin(), error.diagnostics().end());
      result.ok = false;
    }
  }
  return result;
}

namespace {

nlohmann::ordered_json position_json(const core::SourcePosition& where) {
  return {{"file", where.file}, {"line", where.line}, {"column", where.column}};
}

}  // namespace

std::string diagnostics_json(const std::vector<core::Diagnostic>& diagnostics) {
  nlohmann::ordered_json records = nlohmann::ordered_json::array();
  for (const core::Diagnostic& d : diagnostics) {
    nlohmann::ordered_json record = position_json(d.where);
    record["key"] = d.key;
    record["message"] = d.message;
    record["hint"] = d.hint;
    record["included_from"] = nlohmann::ordered_json::array();
    for (const core::SourcePosition& site : d.where.included_from) record["included_from"].push_back(position_json(site));
    records.push_back(std::move(record));
  }
  // A path need not be UTF-8 and JSON text must be: such bytes are replaced, as summary.json does.
  return records.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

namespace {

/// The strategy with every parameter it runs with, defaults included: what a sweep point really compares.
std::string describe_sync(const scenario::TrainingSpec& training) {
  std::string text = "training.sync: {strategy: " + training.sync_strategy.value;
  for (const auto& [key, value] : training.sync_parameters.values()) text += fmt::format(", {}: {}", key, value.text);
  return text + "}";
}

}  // namespace

std::string explain_command(const std::filesystem::path& file, const checks::Registries& registries,
                            const std::optional<std::filesystem::path>& confine) {
  auto document = read_and_check(file, registries, confine);
  scenario::absolute_file_names(document.resolved);
  std::string header = fmt::format("# {} as dtsim reads it: includes merged, defaults filled in\n", file.string());
  if (document.points.size() > 1) header += fmt::format("# the sweep below makes {} runs\n", document.points.size());
  std::string footer;
  for (const auto& point : document.points) {
    const auto graph = scenario::build_topology(point, registries.topologies);
    const std::string label = point.sweep_point.empty() ? "" : point.sweep_point + ": ";
    footer += fmt::format("# {}{}\n", label, describe_topology(point.topology.kind.value, topology::compute_statistics(graph)));
    footer += fmt::format("# {}{}\n", label, describe_sync(point.training));
    if (point.model.timing_only) {
      const auto profile = registries.models.find(point.model.kind.value).factory.profile(core::View(&point.model.section, "model"));
      for (const metrics::DeviceMemory& m : checks::device_memory(point, profile, registries))
        footer += "# " + label + describe_memory(m) + "\n";
    }
  }
  return header + scenario::to_yaml(document.resolved) + footer;
}

std::string describe_memory(const metrics::DeviceMemory& m) {
  const auto size = [](double bytes) { return core::format_size(core::Bytes(bytes)); };
  return fmt::format("memory of a worker{} on {} ({}): parameters {} + gradients {} + optimizer state {} + activations {} "
                     "= {}{}",
                     m.stage >= 0 ? fmt::format(" of pipeline stage {}", m.stage) : "",
                     m.device.empty() ? "its device" : m.device, m.precision, size(m.parameters), size(m.gradients),
                     size(m.optimizer), size(m.activations), size(m.total()),
                     m.capacity ? fmt::format(" of {}{}", size(*m.capacity), m.fits() ? "" : ": does not fit") : "");
}

std::string describe_topology(const std::string& kind, const topology::GraphStatistics& stats) {
  const std::string oversubscription =
      stats.leaf_oversubscription > 0.0 ? fmt::format("oversubscription built {:.4g}:1, ", stats.leaf_oversubscription)
                                        : "";
  return fmt::format("topology {}: {} workers, {} servers, {} switches, {} links; diameter {} hop{}, average {:.3g} "
                     "hops between hosts; {}bisection {} (across the rank-order cut)",
                     kind, stats.workers, stats.servers, stats.switches, stats.links, stats.diameter_hops,
                     stats.diameter_hops == 1 ? "" : "s", stats.average_hops, oversubscription,
                     core::format_bandwidth(stats.bisection_bandwidth));
}

std::string schema_command(bool reference, const checks::Registries& registries) {
  const scenario::SchemaNode schema = scenario::scenario_schema(registries);
  if (reference) return scenario::reference_markdown(schema);
  return scenario::to_json_schema(schema).dump(2) + "\n";
}

}  // namespace dtsim::app
