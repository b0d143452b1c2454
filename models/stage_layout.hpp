#pragma once
// Megatron-Core's pipeline_model_parallel_layout: the layers of each (virtual) stage spelled out, "E" the embedding,
// "t" a transformer block, "L" the output layer and the loss, "|" between stages, "(...)*n" and "x*n" repeats:
// "Et|(tt|)*30L" is the embedding and one block, 30 stages of two blocks, then the loss alone.

#include <string>
#include <string_view>
#include <vector>

namespace dtsim::models {

/// A layout read: the transformer blocks of each stage, in order, or what is wrong with it.
struct StageLayout {
  std::vector<int> blocks;
  std::string error;  ///< empty when the layout reads
};

/// Reads `layout`. The embedding must open the first stage and the loss close the last (as a layer table holds
/// them); a multi-token prediction layer ("m") is refused, as no profile has one.
StageLayout read_stage_layout(std::string_view layout);

}  // namespace dtsim::models
