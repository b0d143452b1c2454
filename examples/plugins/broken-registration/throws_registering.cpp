// Throws while registering: an exception dtsim does not expect from a plug-in.
#include <dtsim/plugin.hpp>

#include <stdexcept>

DTSIM_PLUGIN(registries) {
  static_cast<void>(registries);
  throw std::runtime_error("the plug-in's own table is missing");
}
