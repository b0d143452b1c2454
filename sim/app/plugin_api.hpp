#pragma once
// What a plug-in built outside dtsim compiles against (installed as <dtsim/plugin.hpp>): the registries it
// may add to, and the entry point dtsim looks for when it loads the shared library (`--plugin lib.so`).
//
//   #include <dtsim/plugin.hpp>
//   DTSIM_PLUGIN(registries) {
//     registries.collectives.allreduce.add("mine", "what it does", {.make = [] { return std::make_unique<Mine>(); }});
//   }
//
// A plug-in runs inside dtsim's process and uses dtsim's own code (its symbols come from the dtsim executable),
// so it must be built against the same dtsim version's headers; the loader refuses any other.

#include "sim/comm/collective_algorithm.hpp"
#include "sim/core/version.hpp"
#include "sim/sync/sync_strategy.hpp"

namespace dtsim::plugin {

/// Raised by the layout of Registries or the plug-in interfaces changing: a plug-in of another layout is refused.
inline constexpr int kInterfaceVersion = 1;

/// The registries a plug-in may add entries to. Its entries are then used exactly as built-in ones: by name in
/// scenarios (`training.architecture.algorithm`, `training.sync.strategy`), `dtsim collective --algo`, `dtsim list`.
struct Registries {
  comm::CollectiveCatalog& collectives;
  sync::SyncRegistry& strategies;
};

}  // namespace dtsim::plugin

/// Defines the plug-in's entry point; the body adds its entries to `registries` (a dtsim::plugin::Registries&).
#define DTSIM_PLUGIN(registries)                                                                              \
  static void dtsim_plugin_register_entries(::dtsim::plugin::Registries& registries);                         \
  extern "C" __attribute__((visibility("default"))) int dtsim_plugin_interface_version() {                    \
    return ::dtsim::plugin::kInterfaceVersion;                                                                 \
  }                                                                                                            \
  extern "C" __attribute__((visibility("default"))) const char* dtsim_plugin_dtsim_version() {                \
    return ::dtsim::core::kDtsimVersion;                                                                       \
  }                                                                                                            \
  extern "C" __attribute__((visibility("default"))) void dtsim_plugin_register(::dtsim::plugin::Registries* r) { \
    dtsim_plugin_register_entries(*r);                                                                         \
  }                                                                                                            \
  static void dtsim_plugin_register_entries(::dtsim::plugin::Registries& registries)
