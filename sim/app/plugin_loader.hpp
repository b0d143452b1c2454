#pragma once
// Loads plug-ins built outside dtsim (shared libraries defining DTSIM_PLUGIN, sim/app/plugin_api.hpp) into the
// registries, before any scenario is read: their names are then valid wherever a built-in's is.

#include "sim/checks/registries.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::app {

/// What one plug-in added: "allreduce algorithm 'reduce_broadcast'", in registration order.
struct LoadedPlugin {
  std::filesystem::path path;
  std::vector<std::string> entries;
  /// Its collective algorithms among them, by operation and name.
  std::vector<std::pair<comm::Operation, std::string>> collectives;
  /// Its sync strategies among them, by name.
  std::vector<std::string> strategies;
};

/// Opens each library and calls its entry point on `registries`. Throws core::InputError (exit status 2) naming
/// the file for a missing or unloadable library, one without an entry point, one built against another dtsim,
/// and an entry whose name is taken. The libraries stay loaded for the life of the process.
/// Refuses (core::InputError) a plug-in outside `confine`, when one is given.
void check_confined(const std::filesystem::path& plugin, const std::optional<std::filesystem::path>& confine);

/// With `confine` (canonical), a plug-in outside that folder is refused before it is opened.
std::vector<LoadedPlugin> load_plugins(const std::vector<std::filesystem::path>& paths, checks::Registries& registries,
                                       const std::optional<std::filesystem::path>& confine = std::nullopt);

}  // namespace dtsim::app
