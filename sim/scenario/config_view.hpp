#pragma once
// Read access to a validated scenario document (sim/core/config_view.hpp), for the readers that turn it
// into Scenario structs.

#include "sim/core/config_view.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::scenario {

using core::View;
using topologies::read_link;

}  // namespace dtsim::scenario
