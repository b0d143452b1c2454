#pragma once
// `dtsim report DIR...`: report.html for one run, a sweep's folder (its points), or several runs on shared axes.

#include "sim/checks/registries.hpp"

#include <filesystem>
#include <optional>
#include <span>

namespace dtsim::app {

/// Writes the report of the runs `folders` stand for to `output` (default: <folder>/report.html for one
/// folder, ./report.html for several), atomically; returns where. Throws core::InputError naming a folder
/// that holds no results.
std::filesystem::path report_command(std::span<const std::filesystem::path> folders,
                                     const std::optional<std::filesystem::path>& output,
                                     const checks::Registries& registries);

}  // namespace dtsim::app
