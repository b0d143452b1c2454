#pragma once

#include "sim/checks/registries.hpp"

#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace dtsim::app {

/// `dtsim compare FOLDER...`: the runs those folders hold side by side (simulated time, time to the target
/// loss, final loss, mean staleness, waiting fraction, bytes; timing-only runs by iteration, throughput, MFU,
/// memory, layout and bubble), as a table or CSV; `columns` (analysis/run_columns.hpp) chooses others. Throws
/// core::InputError naming an unknown column, or listing every folder that holds no readable summary.json.
std::string compare_command(std::span<const std::filesystem::path> folders, bool csv,
                            std::span<const std::string> columns, const checks::Registries& registries);

}  // namespace dtsim::app
