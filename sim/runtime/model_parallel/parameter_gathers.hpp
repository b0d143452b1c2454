#pragma once
// ZeRO stages 1 and 2 with `training.overlap_parameter_gather`: the parameters each replica updated are
// gathered bucket by bucket on a stream of their own while the next step's first forward pass runs, each
// bucket before its first layer (Megatron-Core's --overlap-param-gather), instead of all at once after the
// step. In steady state a step begins with the gathers of the one before, so every step, the first included,
// carries one set of them.

#include "models/model_profile.hpp"
#include "sim/runtime/model_parallel/gradient_stream.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::runtime {

/// Who gathers with this worker: every worker (`members` empty), or a model-parallel device's replicas.
struct GatherGroup {
  std::string name;
  std::vector<int> members;
  int position = 0;
  AnalyticalMeeting meeting;
  std::size_t ranks = 1;  ///< the replicas: messages are padded to a multiple of them
};

class ParameterGathers {
 public:
  /// `chunks`: the device's layer tables (as many as its pipeline chunks), each with its parameters.
  /// `order`: the chunks in the order their first forward pass of a step runs.
  ParameterGathers(const TrainingContext& context, int rank, const std::vector<const models::ModelProfile*>& chunks,
                   const std::vector<std::size_t>& order, GatherGroup group);

  /// A step begins: every bucket's gather may start.
  void start_step();
  /// Whether layer `layer` of chunk `chunk` begins a bucket whose gather its first forward pass of the step
  /// must wait for.
  [[nodiscard]] bool waits_before(std::size_t chunk, std::size_t layer) const;
  /// Waits for that bucket's gather: the time blocked is the worker's communication.
  void wait_before(std::size_t chunk, std::size_t layer, const Meter& meter);

 private:
  struct Bucket {
    std::size_t first = 0;  ///< the layer it starts at
    std::int64_t index = 0; ///< its place among the step's gathers, from 1
  };
  std::vector<std::vector<Bucket>> buckets_;  ///< per chunk, in forward order
  std::int64_t per_step_ = 0;
  std::int64_t base_ = 0;  ///< gathers handed over before this step
  std::optional<GradientStream> stream_;
};

}  // namespace dtsim::runtime
