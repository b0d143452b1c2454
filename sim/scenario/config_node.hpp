#pragma once
// The scenario reader's names for the configuration tree (sim/core/config_node.hpp).

#include "sim/core/config_node.hpp"

namespace dtsim::scenario {

using core::ConfigEntry;
using core::ConfigNode;
using core::describe;
using core::find_dotted;
using core::merge_into;
using core::parse_integer;
using core::parse_number;
using core::same_value;
using core::set_dotted;
using core::split_dotted;

}  // namespace dtsim::scenario
