#pragma once
// The scenario as JSON, with units resolved to SI numbers whose names carry the unit
// ("bandwidth_bytes_per_s"): the echo that summary.json starts with.

#include "sim/scenario/scenario.hpp"

#include <nlohmann/json.hpp>

namespace dtsim::scenario {

nlohmann::ordered_json to_json(const Scenario& scenario);

}  // namespace dtsim::scenario
