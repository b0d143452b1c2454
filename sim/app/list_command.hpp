#pragma once

#include "sim/checks/registries.hpp"

#include <string>
#include <vector>

namespace dtsim::app {

/// What `dtsim list` can list.
const std::vector<std::string>& list_topics();

/// `dtsim list [topic]`: names with one-line descriptions, those not supported yet marked; every topic
/// when `topic` is empty.
std::string list_command(const checks::Registries& registries, const std::string& topic);

}  // namespace dtsim::app
