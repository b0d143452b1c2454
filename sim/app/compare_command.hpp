#pragma once

#include "sim/app/registries.hpp"

#include <filesystem>
#include <span>
#include <string>

namespace dtsim::app {

/// `dtsim compare FOLDER...`: the runs those folders hold side by side (simulated time, time to the target
/// loss, final loss, mean staleness, waiting fraction, bytes), as a table or CSV. Throws core::InputError
/// listing every folder that holds no readable summary.json.
std::string compare_command(std::span<const std::filesystem::path> folders, bool csv, const Registries& registries);

}  // namespace dtsim::app
