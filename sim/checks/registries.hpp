#pragma once
// The program's plug-in registries (sim/scenario/registries.hpp), as the commands name them.

#include "sim/scenario/registries.hpp"

namespace dtsim::checks {

using scenario::make_builtin_registries;
using scenario::Registries;

}  // namespace dtsim::checks
