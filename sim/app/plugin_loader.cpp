#include "sim/app/plugin_loader.hpp"

#include "sim/app/isolated_call.hpp"
#include "sim/app/plugin_api.hpp"
#include "sim/checks/library_symbol.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/scenario/plugin_schema.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <set>
#include <stdexcept>

namespace dtsim::app {
namespace {

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
std::set<std::string> entry_names(const checks::Registries& registries) {
  std::set<std::string> names;
  const auto add = [&names](const auto& registry) {
    for (const auto& name : registry.names()) names.insert(entry_name(registry, name));
  };
  for (const comm::Operation operation : comm::all_operations()) add(registries.collectives.of(operation));
  add(registries.strategies);
  return names;
}

/// What `path` is, when it is not a regular file: "no such file", "a folder", "a device or pipe".
std::string not_a_library(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) return "no such plug-in file";
  if (std::filesystem::is_directory(status)) return "this is a folder, not a plug-in's shared library";
  if (!std::filesystem::is_regular_file(status)) return "this is a device, pipe or socket, not a plug-in's shared library";
  return {};
}

LoadedPlugin load_plugin(const std::filesystem::path& path, checks::Registries& registries);

}  // namespace

void check_confined(const std::filesystem::path& plugin, const std::optional<std::filesystem::path>& confine) {
  if (!confine || core::inside_folder(plugin, *confine)) return;
  refuse(plugin, fmt::format("the plug-in is outside {}, the only folder this run may read (--confine)", confine->string()),
         "put the plug-in in the confined folder");
}

namespace {

/// Loads the plug-in and registers its entries into a copy of the registries in a child process first: a
/// plug-in that crashes or hangs there (a bad static initializer, a null pointer in its registration) is
/// refused, naming it, instead of taking dtsim down.
void try_in_a_child(const std::filesystem::path& path, const checks::Registries& registries) {
  const IsolatedOutcome outcome = call_isolated(
      [&] {
        checks::Registries scratch = registries;
        static_cast<void>(load_plugin(path, scratch));
        return std::string();
      },
      std::chrono::seconds(60));
  const char* hint = "run the plug-in's own tests (dtsim check-plugin), or a debugger on its registration";
  switch (outcome.status) {
    case IsolatedOutcome::Status::finished: return;
    case IsolatedOutcome::Status::threw: break;  // load_plugin's own refusal: the real load gives it again
    case IsolatedOutcome::Status::crashed:
      refuse(path, fmt::format("the plug-in's loading and registration {}", outcome.text), hint);
    case IsolatedOutcome::Status::timed_out:
    case IsolatedOutcome::Status::stopped:
      refuse(path, "the plug-in did not finish loading and registering its entries within 60 s", hint);
  }
}

LoadedPlugin load_plugin(const std::filesystem::path& path, checks::Registries& registries) {
  if (const std::string problem = not_a_library(path); !problem.empty()) {
    refuse(path, problem, "give the path of the shared library the plug-in's build made (lib<name>.so)");
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
  const auto interface_version = checks::library_symbol<int (*)()>(handle, "dtsim_plugin_interface_version");
  const auto dtsim_version = checks::library_symbol<const char* (*)()>(handle, "dtsim_plugin_dtsim_version");
  const auto register_entries = checks::library_symbol<void (*)(plugin::Registries*)>(handle, "dtsim_plugin_register");
  if (interface_version == nullptr || dtsim_version == nullptr || register_entries == nullptr) {
    refuse(path, "not a dtsim plug-in: it has no DTSIM_PLUGIN entry point",
           "define the entry point with DTSIM_PLUGIN(registries) { ... } from <dtsim/plugin.hpp>");
  }
  const int interface = interface_version();
  const char* built_for = dtsim_version();
  if (interface != plugin::kInterfaceVersion || built_for == nullptr || std::string(built_for) != core::kDtsimVersion) {
    refuse(path,
           fmt::format("built against dtsim {} (plug-in interface {}); this is dtsim {} (interface {})",
                       built_for == nullptr ? "of no version (its version function returned null)" : built_for,
                       interface, core::kDtsimVersion, plugin::kInterfaceVersion),
           "rebuild the plug-in against this dtsim's installed package");
  }
  const std::set<std::string> before = entry_names(registries);
  plugin::Registries view{registries.collectives, registries.strategies};
  try {
    register_entries(&view);
  } catch (const std::logic_error& taken) {
    refuse(path, fmt::format("cannot register its entries: {}", taken.what()),
           "give the entry a name no built-in or other plug-in uses (`dtsim list` shows them)");
  } catch (const std::exception& thrown) {
    refuse(path, fmt::format("the plug-in threw while registering its entries: {}", thrown.what()),
           "its DTSIM_PLUGIN body must only add entries");
  } catch (...) {
    refuse(path, "the plug-in threw something that is not a std::exception while registering its entries",
           "its DTSIM_PLUGIN body must only add entries");
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

std::vector<LoadedPlugin> load_plugins(const std::vector<std::filesystem::path>& paths, checks::Registries& registries,
                                       const std::optional<std::filesystem::path>& confine) {
  std::vector<LoadedPlugin> loaded;
  loaded.reserve(paths.size());
  for (const auto& path : paths) {
    check_confined(path, confine);
    try_in_a_child(path, registries);
    loaded.push_back(load_plugin(path, registries));
  }
  return loaded;
}

}  // namespace dtsim::app
