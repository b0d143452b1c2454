#pragma once
// How a pipeline runs a model: the layers split into stages, and the order in which each stage runs the
// forward and backward passes of the micro-batches (GPipe: every forward, then every backward; 1F1B:
// after a warm-up, one forward then one backward, which bounds the activations a stage holds; interleaved
// 1F1B: the same over several model chunks per device; zero bubble: the backward split into the input's
// gradient and the weights' gradient, the latter filling the waits; DualPipe: two copies of the stages, the
// micro-batches fed from both ends, a forward and a backward pass of two of them run as one).

#include "models/model_profile.hpp"

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::models {

enum class PipelineSchedule { GPipe, OneForwardOneBackward, Interleaved, ZeroBubble, DualPipe };

struct PipelinePass {
  bool forward = true;
  int microbatch = 0;
  /// Interleaved: the device's model chunk (virtual stage); chunk c of device d is stage c x devices + d.
  int chunk = 0;
  /// The gradient of the weights of a backward pass that computed its input's gradient alone (`input_only`).
  bool weights = false;
  /// A backward pass that computes its input's gradient alone, its weights' gradient left to a later `weights` pass
  /// (every backward pass under zero bubble, some under DualPipe).
  bool input_only = false;
  /// DualPipe: this forward pass and the backward pass after it run as one, each one's communication beside the
  /// other's compute.
  bool beside_next = false;

  bool operator==(const PipelinePass&) const = default;
};

/// The passes device `stage` of `stages` runs in one iteration of `microbatches` micro-batches, in order.
/// Interleaved: `chunks` model chunks per device, in Megatron-LM's order (Narayanan et al. 2021), which
/// needs the micro-batches to be a multiple of the devices. Zero bubble: ZB-H1 (Qi et al. 2024), each
/// device at most stages - stage micro-batches ahead as under 1F1B, its order found by list scheduling
/// passes of equal length (a backward pass first when its gradient has come, then a forward pass, then a
/// weight-gradient pass). DualPipe: DeepSeek's order (deepseek-ai/DualPipe, dualpipe.py), which needs an even
/// number of stages and of micro-batches, at least twice the stages (dualpipe_order.hpp). Interleaved, `extra_warmup` more forward passes before the first backward pass (1
/// under Megatron-Core's overlapped expert communication, so that the backward pass each forward pass runs
/// beside has its gradient). Throws std::invalid_argument for an interleaved order the micro-batches do not fit.
std::vector<PipelinePass> pipeline_passes(PipelineSchedule schedule, int stages, int stage, int microbatches,
                                          int chunks = 1, int extra_warmup = 0);

/// pipeline_passes() of the orders a search asks for again and again: a plan's candidates that differ only in what
/// the order does not depend on (ZeRO, recomputation, placement) share it, and building it was most of the memory
/// model's time (interleaved orders of thousands of passes, one per stage of every candidate). Each order is built
/// once; past kPassesKept passes held (64 MiB) the cache starts again, so that a search of many counts, or of
/// micro-batch counts in the millions, holds a bounded amount.
class PassOrders {
 public:
  static constexpr std::size_t kPassesKept = std::size_t{1} << 22;
  /// pipeline_passes(schedule, stages, stage, microbatches, chunks, extra_warmup), valid until the next call.
  const std::vector<PipelinePass>& of(PipelineSchedule schedule, int stages, int stage, int microbatches, int chunks,
                                      int extra_warmup);

 private:
  std::map<std::array<int, 6>, std::vector<PipelinePass>> orders_;
  std::size_t held_ = 0;  ///< passes in orders_
};

/// Model chunks a device holds: its virtual stages when interleaved, two under DualPipe (a stage of each
/// direction), else one.
int chunks_per_device(PipelineSchedule schedule, int virtual_stages);

/// The micro-batches each of a device's chunks runs a step: half of them under DualPipe (one direction's), else all.
int chunk_microbatches(PipelineSchedule schedule, int microbatches);

/// The stages the model is cut into: devices x chunks, except under DualPipe, whose two chunks are copies of the
/// model's `devices` stages.
int model_stages(PipelineSchedule schedule, int devices, int virtual_stages);

/// Where chunk `chunk` of device `device` sits: the model stage it computes, and the device and chunk that compute
/// the stage after it and the one before it (device -1 where there is none). Interleaved, chunk c of device d is
/// stage c x devices + d; under DualPipe chunk 0 of device d is stage d, its micro-batches flowing to device d + 1,
/// and chunk 1 stage devices - 1 - d, flowing to device d - 1.
struct ChunkPlace {
  int stage = 0;
  int next_device = -1;
  int next_chunk = 0;
  int previous_device = -1;
  int previous_chunk = 0;
};
ChunkPlace chunk_place(PipelineSchedule schedule, int devices, int virtual_stages, int device, int chunk);

/// The most micro-batches whose activations are held at once along `passes` (forward done, backward not;
/// counted per chunk under interleaving).
int activations_in_flight(const std::vector<PipelinePass>& passes);

/// The most activation bytes held at once along `passes`, a forward pass of chunk c adding `per_chunk[c]`
/// and its backward pass (not its weight-gradient pass) releasing them.
double peak_activations(const std::vector<PipelinePass>& passes, const std::vector<double>& per_chunk);

/// The bubble over a stage's compute with equal stages and free communication: (p-1)/m for GPipe and 1F1B,
/// (p-1)/(v m) interleaved, ZB-H1's (p-1)(T_F + T_B - T_W) over m (T_F + T_B + T_W), and DualPipe's
/// (p/2-1)(T_F&B + T_B - 3 T_W) over m (T_F + T_B) (its README's, T_F&B = T_F + T_B when nothing is hidden,
/// T_B the whole backward pass; exact where T_F, the input's gradient and T_W are equal), from a stage's
/// forward, input-gradient and weight-gradient times (or FLOPs).
double bubble_closed_form(PipelineSchedule schedule, int stages, int microbatches, int chunks, double forward,
                          double input_backward, double weight_backward);

/// The part of a layer's backward FLOPs that computes its weights' gradient (zero bubble's W pass): half of
/// it for a layer with weights (one matrix product of the two), none without.
double weight_gradient_flops(const LayerProfile& layer);

/// How the layers are cut into (virtual) stages.
struct StageSplit {
  enum class Kind {
    Flops,  ///< balanced by training FLOPs between transformer blocks
    Even,   ///< the blocks divided evenly, the layers before the first block on the first stage, those after the
            ///< last on the last (Megatron-Core's default)
    Layout,  ///< `blocks` blocks on each stage, in order (Megatron-Core's pipeline_model_parallel_layout)
  };
  Kind kind = Kind::Flops;
  std::vector<int> blocks;  ///< Layout: the blocks of each stage
  /// Even: the layers before the first block (the embedding) count as one block of the first stage, and those after
  /// the last (the output layer and the loss) as one of the last stage (Megatron-Core's
  /// account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split).
  bool embedding_as_block = false;
  bool loss_as_block = false;
  bool operator==(const StageSplit&) const = default;

  [[nodiscard]] static StageSplit even(bool embedding_as_block = false, bool loss_as_block = false) {
    StageSplit out;
    out.kind = Kind::Even;
    out.embedding_as_block = embedding_as_block;
    out.loss_as_block = loss_as_block;
    return out;
  }
  [[nodiscard]] static StageSplit layout(std::vector<int> blocks) {
    StageSplit out;
    out.kind = Kind::Layout;
    out.blocks = std::move(blocks);
    return out;
  }
};

/// Contiguous ranges of `profile`'s layers, one per stage, never cut inside a transformer block. By FLOPs: stage s
/// ends where the running total comes nearest (s+1)/stages of the whole. Even: each stage holds blocks / stages
/// blocks (the embedding and the loss counted as blocks where `split` says so). Returns the first layer of each
/// stage and, last, the layer count. Every stage has at least one layer; throws std::invalid_argument when stages
/// exceed the places to cut, the stages do not divide the blocks to split evenly, or a layout's blocks are not the
/// model's.
std::vector<std::size_t> split_into_stages(const ModelProfile& profile, int stages, const StageSplit& split = {});

/// The layers [first, last) of `profile` as a profile of their own.
ModelProfile stage_profile(const ModelProfile& profile, std::size_t first, std::size_t last);

}  // namespace dtsim::models
