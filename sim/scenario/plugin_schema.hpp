#pragma once
// The part of the scenario format that plug-ins declare (sim/core/plugin_keys.hpp), and the values a plug-in's
// parameters take in a validated section.

#include "datasets/data_plugin.hpp"
#include "models/model_plugin.hpp"
#include "models/optimizer.hpp"
#include "sim/comm/collective_algorithm.hpp"
#include "sim/core/plugin_keys.hpp"
#include "sim/core/registry.hpp"
#include "sim/scenario/schema_names.hpp"
#include "sim/sync/sync_strategy.hpp"
#include "topologies/topology_plugin.hpp"

#include <string>
#include <vector>

namespace dtsim::scenario {

/// The values of the parameters `declared` from the validated mapping `section`, each with its position.
template <class View>
core::ParameterValues declared_values(const std::vector<SchemaNode>& declared, const View& section) {
  core::ParameterValues out;
  for (const SchemaNode& parameter : declared) {
    if (section.has(parameter.key)) out.set(parameter.key, section.text(parameter.key), section.where(parameter.key));
  }
  return out;
}

using core::plugin_keys;

}  // namespace dtsim::scenario
