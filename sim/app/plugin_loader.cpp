#include "sim/app/plugin_loader.hpp"

#include "sim/app/plugin_api.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/plugin_schema.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <set>
#include <stdexcept>

namespace dtsim::app {
namespace {

template <class Function>
Function symbol(void* handle, const char* name) {
  // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
  return reinterpret_cast<Function>(dlsym(handle, name));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

[[noreturn]] void refuse(const std::filesystem::path& path, std::string message, std::string hint) {
  core::Diagnostic diagnostic;
  diagnostic.where.file = path.string();
  diagnostic.message = std::move(message);
  diagnostic.hint = std::move(hint);
  throw core::InputError(std::move(diagnostic));
}

/// An entry as a plug-in's report names it: "<kind> '<name>'".
template <class Registry>
std::string entry_name(const Registry& registry, const std::string& name) {
  return fmt::format("{} '{}'", registry.kind(), name);
}

/// Every registered name, as entry_name() writes it, to see what a plug-in added.
std::set<std::string> entry_names(const Registries& registries) {
  std::set<std::string> names;
  const auto add = [&names](const auto& registry) {
    for (const auto& name : registry.names()) names.insert(entry_name(registry, name));
  };
  for (const comm::Operation operation : comm::all_operations()) add(registries.collectives.of(operation));
  add(registries.strategies);
  return names;
}

LoadedPlugin load_plugin(const std::filesystem::path& path, Registries& registries) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    refuse(path, "no such plug-in file", "give the path of the shared library the plug-in's build made (lib<name>.so)");
  }
  // A bare name would make dlopen search the library path: a path with a slash opens this file.
  const std::filesystem::path opened = path.has_parent_path() ? path : std::filesystem::path(".") / path;
  void* handle = dlopen(opened.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    refuse(path, fmt::format("cannot load the plug-in: {}", why != nullptr ? why : "unknown reason"),
           "a plug-in is a shared library built with dtsim_add_plugin() against this dtsim's installed package; an "
           "undefined symbol means it calls something this dtsim does not have");
  }
  const auto interface_version = symbol<int (*)()>(handle, "dtsim_plugin_interface_version");
  const auto dtsim_version = symbol<const char* (*)()>(handle, "dtsim_plugin_dtsim_version");
  const auto register_entries = symbol<void (*)(plugin::Registries*)>(handle, "dtsim_plugin_register");
  if (interface_version == nullptr || dtsim_version == nullptr || register_entries == nullptr) {
    refuse(path, "not a dtsim plug-in: it has no DTSIM_PLUGIN entry point",
           "define the entry point with DTSIM_PLUGIN(registries) { ... } from <dtsim/plugin.hpp>");
  }
  if (interface_version() != plugin::kInterfaceVersion || std::string(dtsim_version()) != core::kDtsimVersion) {
    refuse(path,
           fmt::format("built against dtsim {} (plug-in interface {}); this is dtsim {} (interface {})", dtsim_version(),
                       interface_version(), core::kDtsimVersion, plugin::kInterfaceVersion),
           "rebuild the plug-in against this dtsim's installed package");
  }
  const std::set<std::string> before = entry_names(registries);
  plugin::Registries view{registries.collectives, registries.strategies};
  // The scenario format is generated from registries of its own: the entries go there too.
  plugin::Registries format{scenario::format_collectives(), scenario::format_sync_strategies()};
  try {
    register_entries(&view);
    register_entries(&format);
  } catch (const std::logic_error& taken) {
    refuse(path, fmt::format("cannot register its entries: {}", taken.what()),
           "give the entry a name no built-in or other plug-in uses (`dtsim list` shows them)");
  }
  LoadedPlugin loaded{path, {}, {}, {}};
  for (const auto& name : entry_names(registries)) {
    if (!before.contains(name)) loaded.entries.push_back(name);
  }
  for (const comm::Operation operation : comm::all_operations()) {
    const auto& registry = registries.collectives.of(operation);
    for (const auto& name : registry.registration_order()) {
      if (!before.contains(entry_name(registry, name))) loaded.collectives.emplace_back(operation, name);
    }
  }
  for (const auto& name : registries.strategies.registration_order()) {
    if (!before.contains(entry_name(registries.strategies, name))) loaded.strategies.push_back(name);
  }
  if (loaded.entries.empty()) {
    refuse(path, "the plug-in registered nothing",
           "add an entry in DTSIM_PLUGIN's body: registries.collectives.allreduce.add(...) or registries.strategies.add(...)");
  }
  return loaded;
}

}  // namespace

std::vector<LoadedPlugin> load_plugins(const std::vector<std::filesystem::path>& paths, Registries& registries) {
  std::vector<LoadedPlugin> loaded;
  loaded.reserve(paths.size());
  for (const auto& path : paths) loaded.push_back(load_plugin(path, registries));
  return loaded;
}

}  // namespace dtsim::app
