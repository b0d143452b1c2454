#pragma once
// `dtsim chakra --replay PREFIX --scenario S.yaml`: a data-parallel job's Chakra trace replayed as a
// timing-only workload on S's cluster. Rank 0's compute nodes become layers (a node named `X.fwd` and its
// `X.bwd` one layer's passes; any other compute node a layer of its own), each timed by its operations
// (`num_ops`, or its duration where it has none) at the device's sustained rate; each allreduce's bytes
// become the parameters of the layer whose node it follows. S gives the cluster, the network, the optimizer,
// the batch and the micro-batches the trace was recorded at.

#include "models/model_profile.hpp"
#include "sim/checks/registries.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/traces/chakra_trace.hpp"

#include <filesystem>
#include <string>

namespace dtsim::app {

struct ChakraReplayOptions {
  std::filesystem::path prefix;    ///< PREFIX of the rank files: rank 0's is read
  std::filesystem::path scenario;  ///< the cluster and recipe to replay it on
};

/// A compute node's pass, by its name: `X.fwd` and `X.bwd` are layer X's passes, `.mbK` ends micro-batch K's
/// (none: micro-batch 0); any other name is a layer's one pass (a forward pass).
struct ChakraPass {
  std::string layer;
  bool backward = false;
  int microbatch = 0;
};
ChakraPass chakra_pass_of(std::string name);

/// The layer table of `trace` for `device` (its compute nodes' operations per sample of `batch`, one
/// micro-batch's; its allreduces' bytes in elements of `gradient_bytes`). Throws core::InputError (naming
/// `source`) for a trace with no compute node, or a collective other than an allreduce.
models::ModelProfile replayed_layers(const traces::ChakraTrace& trace, const std::string& source,
                                     const scenario::DeviceProfile& device, double batch, int gradient_bytes);

/// Replays the trace on the scenario; returns the report (the layers read, the iteration's seconds).
std::string chakra_replay_command(const ChakraReplayOptions& options, const checks::Registries& registries);

}  // namespace dtsim::app
