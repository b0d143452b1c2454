#include "models/device_share.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <stdexcept>

namespace dtsim::models {
namespace {

/// Each block's hidden state (s x h a sample): what its output projections sum over a tensor group (a block
/// whose first layers sum something narrower, multi-head latent attention's latents, still takes and keeps
/// the hidden state as its input).
std::map<int, double> block_inputs(const ModelProfile& profile) {
  std::map<int, double> out;
  for (const LayerProfile& layer : profile.layers) {
    if (layer.block >= 0 && layer.tensor == TensorSplit::Row) out.emplace(layer.block, layer.tensor_sum_elements);
  }
  return out;
}

/// What selective recomputation does to a layer: nothing; reruns its forward pass (the last layer of a module
/// checkpointed whole, whose output the next layer keeps); drops what it keeps and reruns its forward pass; or,
/// for the routed experts' activation function, drops its output and reruns it alone.
enum class Rerun { None, Forward, Dropped, Activation };

Rerun selective_rerun(const LayerProfile& layer, unsigned modules) {
  const auto on = [&](RecomputedModule module) { return (modules & static_cast<unsigned>(module)) != 0U; };
  const auto named = [&](std::string_view suffix) { return layer.block >= 0 && layer.name.ends_with(suffix); };
  if (on(RecomputedModule::CoreAttention)) {
    if (named(".attention.scores")) return Rerun::Dropped;
    if (named(".attention.context")) return Rerun::Forward;
  }
  if (on(RecomputedModule::LayerNorm) && named(".norm")) return Rerun::Dropped;
  if (on(RecomputedModule::LatentUpProjection) && (named(".attention.q_up") || named(".attention.kv_up"))) {
    return Rerun::Dropped;
  }
  if (on(RecomputedModule::Mlp)) {
    if (named(".ffn.up")) return Rerun::Dropped;
    if (named(".ffn.down")) return Rerun::Forward;
  }
  if (on(RecomputedModule::SharedExperts)) {
    if (named(".moe.shared.up")) return Rerun::Dropped;
    if (named(".moe.shared.down")) return Rerun::Forward;
  }
  if (on(RecomputedModule::ExpertActivation) && named(".moe.experts.up")) return Rerun::Activation;
  return Rerun::None;
}

}  // namespace

ModelProfile device_share(const ModelProfile& profile, const DeviceShare& share) {
  if (share.tensor < 1 || share.expert < 1 || share.context < 1 || share.expert_matrices < 1) {
    throw std::invalid_argument("a parallel degree is at least 1");
  }
  const double t = share.tensor;
  ModelProfile out = profile;
  const std::map<int, double> inputs = block_inputs(profile);
  int block = -1;
  for (LayerProfile& layer : out.layers) {
    const bool split = layer.tensor != TensorSplit::Replicated;
    // A routed expert's matrices are split over their own devices, the dense layers' over the tensor group.
    const double matrices = layer.routed() ? share.expert_matrices : t;
    // On the experts' own grid a routed layer's work is the device's 1/t of the tokens: its matrices' share of
    // the tokens its expert-tensor group gathers (as many). Elsewhere sequence parallelism splits the unsplit
    // layers' tokens, not their weights.
    const bool own_grid = share.expert_grid && layer.routed();
    const double work = own_grid ? t : split ? matrices : share.sequence_parallel ? t : 1.0;
    if (split) layer.parameters /= matrices;
    if (layer.routed()) {
      layer.parameters /= share.expert;
      layer.gemm.rows *= share.expert;
    }
    if (own_grid) {
      layer.gemm.rows *= matrices / t;
      layer.exchange_elements /= t;
      // The routed copies of the expert-tensor group's tokens: what it gathers and reduce-scatters.
      layer.tensor_sum_elements = layer.exchange_elements * matrices;
    }
    // Each device's product: a column split narrows its output, a row split its reduction, a token split
    // its rows.
    if (layer.tensor == TensorSplit::Column) layer.gemm.columns /= matrices;
    if (layer.tensor == TensorSplit::Row) layer.gemm.depth /= matrices;
    if (!split && share.sequence_parallel) layer.gemm.rows /= t;
    if (split) layer.context_exchange_elements /= matrices;
    // A context group splits every per-sample quantity by tokens.
    const double tokens = share.context;
    layer.forward_flops /= work * tokens;
    layer.backward_flops /= work * tokens;
    layer.backward_flops += layer.recomputed_flops / (work * tokens);
    layer.recomputed_flops = 0.0;
    layer.activation_bytes /= work * tokens;
    layer.forward_traffic /= work * tokens;
    layer.backward_traffic /= work * tokens;
    for (double* part : {&layer.activation_function.flops, &layer.activation_function.kept_bytes,
                         &layer.activation_function.traffic}) {
      *part /= work * tokens;
    }
    layer.tensor_sum_elements /= tokens;
    layer.exchange_elements /= tokens;
    layer.context_exchange_elements /= tokens;
    layer.gemm.rows /= tokens;
    const Rerun rerun = share.recomputation == Recomputation::Selective ? selective_rerun(layer, share.recomputed) : Rerun::None;
    if (rerun == Rerun::Activation) {
      layer.activation_bytes -= layer.activation_function.kept_bytes;
      layer.backward_flops += layer.activation_function.flops;
      layer.backward_traffic += layer.activation_function.traffic;
    } else if (rerun != Rerun::None) {
      if (rerun == Rerun::Dropped) layer.activation_bytes = 0.0;
      layer.backward_flops += layer.forward_flops;
      layer.backward_traffic += layer.forward_traffic;
    }
    if (share.recomputation == Recomputation::Full && layer.block >= 0) {
      // The block's input (the hidden state, whole on each device unless split by tokens) is all it keeps.
      const auto input = inputs.find(layer.block);
      const double hidden = input != inputs.end() ? input->second / tokens : layer.tensor_sum_elements;
      layer.activation_bytes = layer.block != block ? hidden * 4.0 / (share.sequence_parallel ? t : 1.0) : 0.0;
      layer.backward_flops += layer.forward_flops;
      layer.backward_traffic += layer.forward_traffic;
      block = layer.block;
    }
  }
  return out;
}

}  // namespace dtsim::models
