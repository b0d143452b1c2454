#include "sim/app/list_command.hpp"

#include "models/model_profile.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/failure_catalog.hpp"
#include "sim/scenario/node_catalog.hpp"
#include "sim/scenario/scenario_schema.hpp"

#include <fmt/format.h>

namespace dtsim::app {
namespace {

/// The registered plug-ins first, then the names the scenario language has but this version does not
/// simulate (from the choices of `declared`, the key that names them, where a scenario names them).
template <class Registry>
std::string plugin_section(const std::string& title, const Registry& registry, const scenario::SchemaNode* declared) {
  std::string out = fmt::format("{}:\n", title);
  for (const auto& [name, entry] : registry.entries()) out += fmt::format("  {:<24} {}\n", name, entry.description);
  if (declared == nullptr) return out;
  for (const auto& choice : declared->choices) {
    if (choice.planned) out += fmt::format("  {:<24} {} (not supported yet)\n", choice.name, choice.description);
  }
  return out;
}

/// Each self-describing plug-in with the parameters its entry declares and its example (`key: example`).
template <class Registry>
std::string described_section(const std::string& title, const Registry& registry, const std::string& key) {
  std::string out = title + "\n";
  for (const std::string& name : registry.registration_order()) {
    const auto& entry = registry.find(name);
    out += fmt::format("  {:<24} {}\n", name, entry.description);
    for (const scenario::SchemaNode& parameter : entry.factory.parameters) {
      const std::string given = parameter.required                ? "required"
                                : parameter.default_value.empty() ? "optional"
                                                                  : "default " + parameter.default_value;
      out += fmt::format("    {:<22} {}; {}: {}\n", parameter.key, scenario::expected_value(parameter), given,
                         parameter.description);
    }
    out += fmt::format("    {:<22} {}: {}\n", "example", key, entry.factory.example);
  }
  return out;
}

std::string device_section() {
  std::string out = "devices (cluster.device.name); sustained fractions of the peak by operation class, * where no "
                    "measurement is published (the default; the run notes it), + fitted by dtsim calibrate on the "
                    "validation table's fit rows (docs/validation.md); the power communicating is midway between "
                    "idle and busy (*: no published figure; docs/faults-and-energy.md gives the sources of the others):\n";
  for (const auto& device : scenario::builtin_devices()) {
    const auto& p = device.profile;
    const auto tera = [](const std::optional<core::FlopsPerSecond>& peak) {
      return peak ? fmt::format("{:>7.6g}", peak->value() / 1e12) : std::string("      -");
    };
    const std::string half = tera(p.half_flops);
    std::string sustained;
    for (std::size_t op = 0; op < models::kOpClasses; ++op) {
      const auto& measured = p.class_efficiency[op];
      sustained += fmt::format("{}{} {}", op == 0 ? "" : ", ", models::kOpClassKeys[op],
                               measured ? fmt::format("{:.0f}%{}", 100 * *measured, device.fitted[op] ? "+" : "")
                                        : fmt::format("{:.0f}%*", 100 * p.efficiency));
    }
    const std::string multiprocessors = p.multiprocessors ? fmt::format("{:>3} SMs", *p.multiprocessors) : "  - SMs";
    out += fmt::format("  {:<8} {:>7.6g} TFLOPS FP32, {} 16-bit, {} FP8, {} FP4, {:>5.0f} GB/s memory, {}, {:>4.0f} W "
                       "max; {}\n"
                       "           sustained: {}\n"
                       "           power: idle {:.0f} W, communicating {:.0f} W*, busy {:.0f} W\n",
                       p.name, p.peak_flops.value() / 1e12, half, tera(p.fp8_flops), tera(p.fp4_flops),
                       p.memory_bandwidth->value() / 1e9, multiprocessors,
                       p.busy_power->value(), device.description, sustained, p.idle_power->value(),
                       p.communication_draw()->value(), p.busy_power->value());
  }
  return out;
}

std::string node_section() {
  std::string out = "nodes (cluster.nodes[].type, with topology.kind: hierarchical):\n";
  for (const auto& node : scenario::builtin_nodes()) {
    out += fmt::format("  {:<15} {:>2} x {:<6} {:<10} {:>4.0f} GB/s per link, {} NICs of {:.0f} Gb/s; {}\n", node.name,
                       node.devices, node.device, scenario::to_string(node.intra), node.intra_link.bandwidth.value() / 1e9,
                       node.nics, node.nic_bandwidth.value() * 8 / 1e9, node.description);
  }
  return out;
}

std::string failure_catalog_section() {
  std::string out = "failure catalogs (failures.catalog; a budget's run projects them), each kind's mtbf of one component:\n";
  for (const scenario::FailureCatalog& catalog : scenario::failure_catalogs()) {
    out += fmt::format("  {}: {}\n", catalog.name, catalog.description);
    for (const scenario::ComponentFailures& kind : catalog.components) {
      out += fmt::format("    {:<9} {:>12.0f} h per {:<6} {}\n", kind.kind, kind.mtbf_s / 3600.0, scenario::to_string(kind.per),
                         kind.source);
    }
  }
  return out;
}

std::string profile_section() {
  std::string out =
      "model profiles (model.kind: profile:<name>; timing only), per sample: forward and training FLOPs, activations\n";
  for (const std::string& name : models::profile_names()) {
    const models::ModelProfile p = models::find_profile(name);
    // A mixture of experts says how many of its parameters a token passes through.
    const std::string active = p.active_parameters() < p.parameters()
                                   ? fmt::format(" ({:.1f}M active)", p.active_parameters() / 1e6)
                                   : std::string();
    out += fmt::format("  {:<22} {:>7.1f}M parameters{}, {:>8.2f} / {:>8.2f} GFLOP, {:>7.1f} MB; {} ({})\n", name,
                       p.parameters() / 1e6, active, p.forward_flops() / 1e9, p.training_flops() / 1e9,
                       p.activation_bytes() / 1e6, p.description, p.sample);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& list_topics() {
  static const std::vector<std::string> topics{"devices", "nodes", "topologies", "collectives", "strategies",
                                               "optimizers", "models", "profiles", "data", "failures"};
  return topics;
}

std::string list_command(const checks::Registries& registries, const std::string& topic) {
  std::vector<std::string> sections;
  if (topic.empty() || topic == "devices") sections.push_back(device_section());
  if (topic.empty() || topic == "nodes") sections.push_back(node_section());
  if (topic.empty() || topic == "topologies") {
    sections.push_back(described_section("topologies (topology.kind), with their own keys under topology:",
                                         registries.topologies, "topology"));
  }
  if (topic.empty() || topic == "collectives") {
    const scenario::SchemaNode schema = scenario::scenario_schema(registries);
    sections.push_back(plugin_section("allreduce algorithms (training.architecture.algorithm, dtsim collective --op allreduce)",
                                      registries.collectives.allreduce,
                                      scenario::find_schema(schema, "training.architecture.algorithm")));
    for (const comm::Operation operation : comm::all_operations()) {
      if (operation == comm::Operation::allreduce) continue;
      const std::string_view name = comm::to_string(operation);
      sections.push_back(plugin_section(fmt::format("{} algorithms (dtsim collective --op {})", name, name),
                                        registries.collectives.of(operation), nullptr));
    }
  }
  if (topic.empty() || topic == "strategies") {
    sections.push_back(described_section(
        "sync strategies (training.sync.strategy), with their own keys under training.sync:", registries.strategies, "sync"));
  }
  if (topic.empty() || topic == "optimizers") {
    sections.push_back(described_section("optimizers (training.optimizer.kind), with their own keys beside learning_rate:",
                                         registries.optimizers, "optimizer"));
  }
  if (topic.empty() || topic == "models") {
    sections.push_back(
        described_section("models (model.kind), with their own keys under model:", registries.models, "model"));
  }
  if (topic.empty() || topic == "profiles") sections.push_back(profile_section());
  if (topic.empty() || topic == "data") {
    sections.push_back(
        described_section("data sets (data.kind), with their own keys under data:", registries.data_sets, "data") +
        fmt::format("  the data sets' files are read from {} ($DTSIM_DATA overrides it)\n",
                    checks::data_folder().string()));
  }
  if (topic.empty() || topic == "failures") sections.push_back(failure_catalog_section());
  std::string out;
  for (const auto& section : sections) out += (out.empty() ? "" : "\n") + section;
  return out;
}

}  // namespace dtsim::app
