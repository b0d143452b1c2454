#pragma once
// Writes a ConfigNode tree back out as YAML (for `dtsim explain`), marking values that came from defaults.

#include "sim/scenario/config_node.hpp"

#include <string>

namespace dtsim::scenario {

/// Block-style YAML; a value filled in from a default carries a `# default` comment.
std::string to_yaml(const ConfigNode& node);

}  // namespace dtsim::scenario
