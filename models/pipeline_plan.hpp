#pragma once
// How a pipeline runs a model: the layers split into stages, and the order in which each stage runs the
// forward and backward passes of the micro-batches (GPipe: every forward, then every backward; 1F1B:
// after a warm-up, one forward then one backward, which bounds the activations a stage holds).

#include "models/model_profile.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dtsim::models {

enum class PipelineSchedule { GPipe, OneForwardOneBackward };

struct PipelinePass {
  bool forward = true;
  int microbatch = 0;

  bool operator==(const PipelinePass&) const = default;
};

/// The passes stage `stage` of `stages` runs in one iteration of `microbatches` micro-batches, in order.
std::vector<PipelinePass> pipeline_passes(PipelineSchedule schedule, int stages, int stage, int microbatches);

/// The most micro-batches whose activations are held at once along `passes` (forward done, backward not).
int activations_in_flight(const std::vector<PipelinePass>& passes);

/// Contiguous ranges of `profile`'s layers, one per stage, balanced by training FLOPs: stage s ends where the
/// running total comes nearest (s+1)/stages of the whole, between transformer blocks, never inside one.
/// Returns the first layer of each stage and, last, the layer count. Every stage has at least one layer;
/// throws std::invalid_argument when stages exceed the places to cut.
std::vector<std::size_t> split_into_stages(const ModelProfile& profile, int stages);

/// The layers [first, last) of `profile` as a profile of their own.
ModelProfile stage_profile(const ModelProfile& profile, std::size_t first, std::size_t last);

}  // namespace dtsim::models
