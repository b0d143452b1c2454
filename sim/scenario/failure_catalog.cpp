#include "sim/scenario/failure_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::scenario {
namespace {

// The Llama 3 report (Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, section 3.3.4 and
// table 5): 419 unexpected interruptions of the Llama 3 405B pre-training job on 16,384 H100 GPUs (2,048 Grand
// Teton nodes of 8) in a 54-day snapshot. Each row's count over its components' hours in the snapshot gives a
// component's rate; a component's mtbf is its inverse. The table's percentages do not all equal count / 419
// (148 rows as 30.1%); the counts, which sum to 419, are used.
constexpr double kLlama3Devices = 16'384.0;
constexpr double kLlama3Nodes = 2'048.0;
constexpr double kLlama3Seconds = 54.0 * 86'400.0;

ComponentFailures llama3_row(std::string kind, ComponentUnit per, int count, std::string_view rows) {
  const double components = per == ComponentUnit::Device ? kLlama3Devices : kLlama3Nodes;
  return {std::move(kind), components * kLlama3Seconds / count, per, 0.0,
          fmt::format("{} interruptions ({}) over {} {}s x 54 days", count, rows, components,
                      per == ComponentUnit::Device ? "GPU" : "node")};
}

FailureCatalog llama3_2024() {
  return {"llama3_2024",
          "Llama 3 405B pre-training, 16,384 H100 GPUs in 2,048 nodes, 419 unexpected interruptions in 54 days "
          "(Dubey et al. 2024, The Llama 3 Herd of Models, table 5); 47 planned interruptions left out",
          {
              llama3_row("gpu", ComponentUnit::Device, 196,
                         "faulty GPU 148, GPU SRAM memory 19, GPU system processor 17, silent data corruption 6, "
                         "GPU thermal interface and sensor 6"),
              llama3_row("hbm", ComponentUnit::Device, 72, "GPU HBM3 memory 72"),
              llama3_row("nic", ComponentUnit::Device, 7, "NIC 7"),
              llama3_row("network", ComponentUnit::Device, 35,
                         "network switch or cable 35; the report does not count the switches and cables, so the rate "
                         "is per GPU served"),
              llama3_row("host", ComponentUnit::Node, 46,
                         "host maintenance (unplanned) 32, SSD 3, power supply 3, server chassis 2, IO expansion "
                         "board 2, CPU 2, system memory 2"),
              llama3_row("software", ComponentUnit::Device, 63,
                         "software bug 54, dependency 2, NCCL watchdog timeouts 7 (of unknown cause); per GPU, as "
                         "the chance of a fault grows with the job"),
          }};
}

}  // namespace

const std::vector<std::string>& component_kinds() {
  static const std::vector<std::string> kinds{"gpu", "hbm", "nic", "network", "host", "software", "storage"};
  return kinds;
}

ComponentUnit default_unit(std::string_view kind) { return kind == "host" ? ComponentUnit::Node : ComponentUnit::Device; }

std::string_view to_string(ComponentUnit unit) { return unit == ComponentUnit::Node ? "node" : "device"; }

const std::vector<FailureCatalog>& failure_catalogs() {
  static const std::vector<FailureCatalog> catalogs{llama3_2024()};
  return catalogs;
}

std::optional<FailureCatalog> find_failure_catalog(std::string_view name) {
  const auto& all = failure_catalogs();
  const auto found = std::find_if(all.begin(), all.end(), [&](const FailureCatalog& c) { return c.name == name; });
  if (found == all.end()) return std::nullopt;
  return *found;
}

std::vector<std::string> failure_catalog_names() {
  std::vector<std::string> names;
  for (const FailureCatalog& catalog : failure_catalogs()) names.push_back(catalog.name);
  return names;
}

}  // namespace dtsim::scenario
