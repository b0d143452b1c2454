// Crashes while registering: a null pointer written to (a mistake a plug-in's author can make).
#include <dtsim/plugin.hpp>

#include <csignal>

DTSIM_PLUGIN(registries) {
  static_cast<void>(registries);
  std::raise(SIGSEGV);
}
