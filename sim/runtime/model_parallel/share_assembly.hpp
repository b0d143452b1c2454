#pragma once
// What the devices of a model split for real share, beside their messages: the whole model's parameters
// assembled from every device's share after each step, for the evaluations (an observation, not a message),
// how many devices have finished each step, and a mixture's gate's loads.

#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/model_parallel/gate_loads.hpp"

#include <map>
#include <memory>
#include <optional>

namespace dtsim::runtime {

struct ShareAssembly {
  models::Parameters whole;
  std::map<std::int64_t, int> finished;  ///< devices done with each step
  std::optional<GateLoads> gate_loads;   ///< a mixture's: what its gate sent each expert group's devices
};

/// The assembly for one run, starting from the model's initial parameters.
std::shared_ptr<ShareAssembly> make_share_assembly(const TrainingSetup& setup);

/// Counts one device as done with step `iteration`, its share already written into `assembly.whole`; the
/// last device of the step records its evaluation from the whole. A device cannot write the next step's
/// values before every device has finished this one: each step's backward pass reaches it only after all
/// the forward passes.
void finish_share(const TrainingContext& context, ShareAssembly& assembly, std::int64_t iteration);

}  // namespace dtsim::runtime
