#pragma once
// The scenario format of the built-in plug-ins, for tests that read scenarios: built once per test process,
// as main builds the program's.

#include "sim/scenario/scenario_format.hpp"

namespace dtsim::test {

inline const scenario::ScenarioFormat& scenario_format() {
  static const scenario::Registries registries = scenario::make_builtin_registries();
  static const scenario::ScenarioFormat format(registries);
  return format;
}

}  // namespace dtsim::test
