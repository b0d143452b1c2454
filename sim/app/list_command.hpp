#pragma once

#include "sim/app/registries.hpp"

#include <string>

namespace dtsim::app {

/// `dtsim list`: every registered plug-in with its description, and the names planned but not built yet.
std::string list_command(const Registries& registries);

}  // namespace dtsim::app
