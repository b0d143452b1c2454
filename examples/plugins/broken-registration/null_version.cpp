// The entry points written by hand, the version one returning a null pointer.
#include <dtsim/plugin.hpp>

extern "C" __attribute__((visibility("default"))) int dtsim_plugin_interface_version() {
  return ::dtsim::plugin::kInterfaceVersion;
}
extern "C" __attribute__((visibility("default"))) const char* dtsim_plugin_dtsim_version() { return nullptr; }
extern "C" __attribute__((visibility("default"))) void dtsim_plugin_register(::dtsim::plugin::Registries*) {}
