#pragma once
// `dtsim chakra S.yaml -o PREFIX`: the work each rank of a timing-only data-parallel scenario does in one
// iteration, as MLCommons Chakra execution traces (PREFIX.RANK.et, the files ASTRA-sim reads): each layer's
// forward and backward pass as a compute node with its device time and operations, each layer's gradients
// as an allreduce once its last backward pass is done, and the optimizer's step after them.

#include "sim/checks/registries.hpp"

#include <filesystem>
#include <string>

namespace dtsim::app {

struct ChakraExportOptions {
  std::filesystem::path scenario;
  std::filesystem::path prefix;  ///< PREFIX of the rank files
};

/// The most ranks written: ASTRA-sim reads a file per rank, and a data-parallel run's files are alike.
inline constexpr int kMaxChakraRanks = 4096;

/// Writes the rank files (each atomically) and returns what was written, a line. Throws core::InputError for
/// a bad scenario, one that is not a timing-only data-parallel run, too many ranks, or a prefix whose files
/// would replace the scenario, before writing anything.
std::string chakra_export_command(const ChakraExportOptions& options, const checks::Registries& registries);

}  // namespace dtsim::app
