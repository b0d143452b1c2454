#pragma once
// The layer table as one device of a tensor-parallel group runs it: the layers Megatron-LM splits (by
// columns, rows or heads) divided over the group, and the activations kept for the backward pass as the
// recomputation mode leaves them (Korthikanti et al. 2022).

#include "models/model_profile.hpp"

namespace dtsim::models {

enum class Recomputation {
  None,       ///< every layer's activations kept
  Selective,  ///< the recomputed modules' activations dropped, their forward pass rerun in the backward pass
  Full,       ///< only each block's input kept, the whole block's forward pass rerun in its backward pass
};

/// The modules selective recomputation reruns, as Megatron-Core's recompute_modules names them (bits of
/// DeviceShare::recomputed). Core attention, the shared experts and a dense block's MLP are checkpointed whole:
/// what they keep inside is dropped, their output kept. The norms, the latent up-projections and the routed
/// experts' activation function keep no output: the next product keeps its input, and they run again just
/// before it is needed (Megatron-Core's CheckpointWithoutOutput).
enum class RecomputedModule : unsigned {
  CoreAttention = 1U << 0U,      ///< core_attn: the scores, their softmax and the context product
  LayerNorm = 1U << 1U,          ///< layernorm: each block's norms
  LatentUpProjection = 1U << 2U, ///< mla_up_proj: multi-head latent attention's query and key-value up-projections
  Mlp = 1U << 3U,                ///< mlp: a dense block's feed-forward products
  ExpertActivation = 1U << 4U,   ///< moe_act: the routed experts' activation function
  SharedExperts = 1U << 5U,      ///< shared_experts: a mixture's shared experts
};

struct DeviceShare {
  int tensor = 1;                  ///< the tensor-parallel degree
  bool sequence_parallel = false;  ///< the unsplit layers' work and activations divided by tokens too
  Recomputation recomputation = Recomputation::None;
  /// Under selective recomputation, the RecomputedModule bits it reruns: core attention alone unless declared.
  unsigned recomputed = static_cast<unsigned>(RecomputedModule::CoreAttention);
  /// The expert-parallel degree: each device holds 1/expert of the routed experts, and runs them on the
  /// tokens the group routes to them (as many products' FLOPs as without, each over expert times the rows).
  int expert = 1;
  /// The context-parallel degree: each device holds 1/context of every sequence's tokens (and computes its
  /// queries' attention, an even share of the causal work under two chunks a device).
  int context = 1;
  /// The devices each routed expert's weight matrices are split over, by columns or rows as the tensor group
  /// splits the dense layers' (scenario::device_share_of: the degrees of the axes that split them: the tensor
  /// degree, or the expert-tensor degree on the experts' own grid).
  int expert_matrices = 1;
  /// The routed experts on their own grid (Megatron-Core's, training.parallelism.expert_tensor declared): a routed
  /// layer runs on the device's own tokens, its 1/tensor share of the micro-batch (the hidden state as sequence
  /// parallelism splits it), which its expert_matrices devices, each of another replica, gather before their
  /// products. Without, every device of a tensor group runs the whole micro-batch's routed tokens.
  bool expert_grid = false;
};

/// `profile`'s layers as one device computes and holds them. Each layer keeps its tensor_sum_elements
/// (the whole hidden state a group sums; on the experts' own grid, a routed layer's the routed copies its
/// expert-tensor group gathers and reduce-scatters). Throws std::invalid_argument for a degree below 1.
/// Under expert parallelism a device's routed experts are those of uniformly routed tokens; routing
/// imbalance is the run's (its busiest device's share of the tokens).
ModelProfile device_share(const ModelProfile& profile, const DeviceShare& share);

}  // namespace dtsim::models
