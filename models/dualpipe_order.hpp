#pragma once
// DualPipe (DeepSeek-AI 2024, DeepSeek-V3 report section 3.2.1; deepseek-ai/DualPipe): each device of an even
// pipeline holds two copies of the stages, stage d for the micro-batches fed to the first device and stage
// p - 1 - d for those fed to the last, so that half the micro-batches flow each way; in the steady state a
// forward pass of one direction and a backward pass of the other run as one, each one's communication beside
// the other's compute, and the backward passes of the ramps leave their weights' gradients to fill the waits.

#include "models/pipeline_plan.hpp"

#include <vector>

namespace dtsim::models {

/// The passes device `device` of `devices` runs in an iteration of `microbatches` micro-batches, in the order of
/// DualPipe.step (dualpipe.py at 3da1bbe, its eight steps). Chunk 0 is the direction that enters at device 0,
/// whose micro-batches are 0 to m/2 - 1; chunk 1 the one entering at the last device, micro-batches m/2 to m - 1.
/// A pass's `beside_next` marks the repository's _forward_backward_chunk; `input_only` its enable_zb, whose weights'
/// gradients a later `weights` pass computes, first in first out. Throws std::invalid_argument unless the devices
/// are even and the micro-batches even and at least twice the devices.
std::vector<PipelinePass> dualpipe_passes(int devices, int device, int microbatches);

}  // namespace dtsim::models
