#pragma once
// Pipeline jobs in Chakra execution traces. Written: each stage's rank runs its schedule's passes (GPipe's or
// 1F1B's), a forward pass receiving the previous stage's activations and sending its own on, a backward pass
// receiving the next stage's activation gradients and sending its input's back, each layer's gradients
// allreduced over the stage's replicas after its last backward pass, the optimizer last. Replayed: the
// stages' traces (replica 0's ranks) become one layer table cut where the stages were cut, the activations
// sent between them its boundaries' outputs, run on the scenario's pipeline.

#include "models/model_profile.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/checks/registries.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/traces/chakra_trace.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace dtsim::app {

/// What one pipeline stage's rank does in an iteration.
struct StageRank {
  models::ModelProfile timed;  ///< the stage's layers, FLOPs its host executes for one micro-batch
  double rate = 0.0;           ///< the device's sustained FLOP/s
  int rank = 0;
  int stage = 0;
  int stages = 1;
  int microbatches = 1;
  models::PipelineSchedule schedule = models::PipelineSchedule::OneForwardOneBackward;
  int previous_rank = -1;              ///< the previous stage's rank in the same replica; -1 on the first stage
  int next_rank = -1;                  ///< the next stage's; -1 on the last
  std::int64_t to_next_bytes = 0;      ///< a micro-batch's activations sent on
  std::int64_t to_previous_bytes = 0;  ///< a micro-batch's input gradient sent back
  std::string replica_group;           ///< the process group its gradients are allreduced over; "": no replicas
  int gradient_bytes = 4;
  double optimizer_flops = 0.0;
};

/// Whether `plan` splits the model over pipeline stages alone (one model chunk a device; no tensor, expert or
/// context parallelism): the pipelines whose traces are written and replayed.
bool chakra_pipeline_only(const scenario::ParallelismSpec& plan);

/// The schedules a pipeline trace is written and replayed under: GPipe and 1F1B (one model chunk a device).
bool chakra_pipeline_schedule(models::PipelineSchedule schedule);

/// The rank's trace.
traces::ChakraTrace pipeline_rank_trace(const StageRank& rank);

/// The tag of micro-batch `microbatch`'s message forward (activations) or backward (their gradients).
inline int pipeline_tag(int microbatch, bool backward) { return 2 * microbatch + (backward ? 1 : 0); }

/// Replays the traces under `prefix` of scenario `s`'s replica 0 stage by stage on `s` (checked, timing only,
/// a pipeline of GPipe or 1F1B, no other model parallelism, no ZeRO); returns the report. Throws
/// core::InputError when a stage's file is missing or bad, its messages go to ranks the scenario does not
/// place there, or its micro-batches or order of passes are not the scenario's.
std::string replay_pipeline(const scenario::Scenario& s, const std::filesystem::path& scenario_file,
                            const std::filesystem::path& prefix, const checks::Registries& registries);

}  // namespace dtsim::app
