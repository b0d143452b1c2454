#include "sim/app/list_command.hpp"

#include <fmt/format.h>

namespace dtsim::app {
namespace {

template <class Registry>
std::string section(const Registry& registry) {
  std::string out = fmt::format("{}:\n", registry.kind());
  for (const auto& [name, entry] : registry.entries()) out += fmt::format("  {:<20} {}\n", name, entry.description);
  const auto& planned = planned_names(registry.kind());
  if (!planned.empty()) out += fmt::format("  not supported yet: {}\n", core::join_names(planned));
  return out;
}

}  // namespace

std::string list_command(const Registries& registries) {
  return section(registries.topologies) + "\n" + section(registries.models) + "\n" + section(registries.strategies);
}

}  // namespace dtsim::app
