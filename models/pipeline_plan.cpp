#include "models/pipeline_plan.hpp"

#include "models/dualpipe_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace dtsim::models {

namespace {

/// Megatron-LM's interleaved order: forward k runs chunk (k / p) mod v of micro-batch (k / pv) p + k mod p,
/// backward k the chunks in reverse; device d warms up with 2 (p - d - 1) + (v - 1) p forwards, and `extra` more.
std::vector<PipelinePass> interleaved_passes(int p, int d, int m, int v, int extra) {
  if (m % p != 0) {
    throw std::invalid_argument(fmt::format(
        "the interleaved schedule runs micro-batches in groups of the {} stages, and {} is not a multiple", p, m));
  }
  const int total = m * v;
  const auto pass = [&](int k, bool forward) {
    const int chunk = (k / p) % v;
    return PipelinePass{forward, (k / (p * v)) * p + k % p, forward ? chunk : v - 1 - chunk, false};
  };
  const int warmup = m == p ? total : std::min(2 * (p - d - 1) + (v - 1) * p + extra, total);
  std::vector<PipelinePass> out;
  for (int k = 0; k < warmup; ++k) out.push_back(pass(k, true));
  for (int k = 0; k < total - warmup; ++k) {
    out.push_back(pass(warmup + k, true));
    out.push_back(pass(k, false));
  }
  for (int k = total - warmup; k < total; ++k) out.push_back(pass(k, false));
  return out;
}

/// ZB-H1 by list scheduling passes of one time unit each over all stages: whenever a stage is free it runs
/// a backward pass whose gradient has come, else a forward pass whose input has come (at most p - s held),
/// else a weight-gradient pass, else it waits for the next pass to end anywhere.
std::vector<PipelinePass> zero_bubble_passes(int p, int stage, int m) {
  constexpr int kNever = std::numeric_limits<int>::max();
  // When each stage's forward and backward of each micro-batch ends (kNever: not yet).
  std::vector<std::vector<int>> forward_done(static_cast<std::size_t>(p), std::vector<int>(static_cast<std::size_t>(m), kNever));
  std::vector<std::vector<int>> backward_done = forward_done;
  struct Cursor {
    int free_at = 0;
    int forwards = 0;
    int backwards = 0;
    int weights = 0;
    std::vector<PipelinePass> order;
  };
  std::vector<Cursor> stages(static_cast<std::size_t>(p));
  const auto at = [](std::vector<std::vector<int>>& table, int s, int j) -> int& {
    return table[static_cast<std::size_t>(s)][static_cast<std::size_t>(j)];
  };
  for (int now = 0;; ++now) {
    bool all_done = true;
    for (int s = 0; s < p; ++s) {
      Cursor& c = stages[static_cast<std::size_t>(s)];
      if (c.weights < m) all_done = false;
      if (c.free_at > now || c.weights == m) continue;
      const int b = c.backwards;
      const int f = c.forwards;
      if (b < f && (s == p - 1 ? at(forward_done, s, b) <= now : at(backward_done, s + 1, b) <= now)) {
        c.order.push_back({false, b, 0, false});
        c.order.back().input_only = true;
        at(backward_done, s, b) = now + 1;
        ++c.backwards;
      } else if (f < m && f - b < p - s && (s == 0 || at(forward_done, s - 1, f) <= now)) {
        c.order.push_back({true, f, 0, false});
        at(forward_done, s, f) = now + 1;
        ++c.forwards;
      } else if (c.weights < c.backwards) {
        c.order.push_back({false, c.weights, 0, true});
        ++c.weights;
      } else {
        continue;
      }
      c.free_at = now + 1;
    }
    if (all_done) break;
  }
  return stages[static_cast<std::size_t>(stage)].order;
}

}  // namespace

std::vector<PipelinePass> pipeline_passes(PipelineSchedule schedule, int stages, int stage, int microbatches,
                                          int chunks, int extra_warmup) {
  if (schedule == PipelineSchedule::Interleaved) {
    return interleaved_passes(stages, stage, microbatches, chunks, extra_warmup);
  }
  if (schedule == PipelineSchedule::ZeroBubble) return zero_bubble_passes(stages, stage, microbatches);
  if (schedule == PipelineSchedule::DualPipe) return dualpipe_passes(stages, stage, microbatches);
  std::vector<PipelinePass> out;
  if (schedule == PipelineSchedule::GPipe) {
    for (int m = 0; m < microbatches; ++m) out.push_back({true, m, 0, false});
    for (int m = 0; m < microbatches; ++m) out.push_back({false, m, 0, false});
    return out;
  }
  // 1F1B (PipeDream-Flush): the last stage alternates at once; each earlier stage runs one more forward
  // first, so that a backward is ready for it when its warm-up ends.
  const int warmup = std::min(stages - stage - 1, microbatches);
  int forward = 0;
  int backward = 0;
  for (; forward < warmup; ++forward) out.push_back({true, forward, 0, false});
  while (forward < microbatches) {
    out.push_back({true, forward++, 0, false});
    out.push_back({false, backward++, 0, false});
  }
  while (backward < microbatches) out.push_back({false, backward++, 0, false});
  return out;
}

const std::vector<PipelinePass>& PassOrders::of(PipelineSchedule schedule, int stages, int stage, int microbatches,
                                                int chunks, int extra_warmup) {
  const std::array<int, 6> key{static_cast<int>(schedule), stages, stage, microbatches, chunks, extra_warmup};
  if (const auto found = orders_.find(key); found != orders_.end()) return found->second;
  std::vector<PipelinePass> passes = pipeline_passes(schedule, stages, stage, microbatches, chunks, extra_warmup);
  if (held_ + passes.size() > kPassesKept) {
    orders_.clear();
    held_ = 0;
  }
  held_ += passes.size();
  return orders_.emplace(key, std::move(passes)).first->second;
}

int chunks_per_device(PipelineSchedule schedule, int virtual_stages) {
  if (schedule == PipelineSchedule::Interleaved) return virtual_stages;
  return schedule == PipelineSchedule::DualPipe ? 2 : 1;
}

int chunk_microbatches(PipelineSchedule schedule, int microbatches) {
  return schedule == PipelineSchedule::DualPipe ? microbatches / 2 : microbatches;
}

int model_stages(PipelineSchedule schedule, int devices, int virtual_stages) {
  return schedule == PipelineSchedule::DualPipe ? devices : devices * chunks_per_device(schedule, virtual_stages);
}

ChunkPlace chunk_place(PipelineSchedule schedule, int devices, int virtual_stages, int device, int chunk) {
  ChunkPlace out;
  if (schedule == PipelineSchedule::DualPipe) {
    // Both directions cross the same stages: the reverse one from the last device to the first.
    const int step = chunk == 0 ? 1 : -1;
    out.stage = chunk == 0 ? device : devices - 1 - device;
    if (out.stage + 1 < devices) out.next_device = device + step;
    if (out.stage > 0) out.previous_device = device - step;
    out.next_chunk = chunk;
    out.previous_chunk = chunk;
    return out;
  }
  const int stages = model_stages(schedule, devices, virtual_stages);
  out.stage = chunk * devices + device;
  if (out.stage + 1 < stages) {
    out.next_device = (out.stage + 1) % devices;
    out.next_chunk = (out.stage + 1) / devices;
  }
  if (out.stage > 0) {
    out.previous_device = (out.stage - 1) % devices;
    out.previous_chunk = (out.stage - 1) / devices;
  }
  return out;
}

int activations_in_flight(const std::vector<PipelinePass>& passes) {
  int held = 0;
  int most = 0;
  for (const PipelinePass& pass : passes) {
    if (pass.weights) continue;
    held += pass.forward ? 1 : -1;
    most = std::max(most, held);
  }
  return most;
}

namespace {

/// The first layer of each transformer block of `profile`, in order.
std::vector<std::size_t> block_starts(const ModelProfile& profile) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < profile.layers.size(); ++i) {
    const int block = profile.layers[i].block;
    if (block >= 0 && (i == 0 || profile.layers[i - 1].block != block)) out.push_back(i);
  }
  return out;
}

/// The stages' first layers where stage s holds `blocks[s]` blocks, the layers before the first block with the first
/// stage and those after the last with the last.
std::vector<std::size_t> cut_by_blocks(const ModelProfile& profile, const std::vector<int>& blocks) {
  const std::vector<std::size_t> starts = block_starts(profile);
  std::vector<std::size_t> first{0};
  std::size_t taken = 0;
  for (std::size_t s = 0; s + 1 < blocks.size(); ++s) {
    taken += static_cast<std::size_t>(blocks[s]);
    // A stage holding the loss alone starts after the last block.
    std::size_t cut = taken < starts.size() ? starts[taken] : starts.back();
    if (taken >= starts.size()) {
      while (cut < profile.layers.size() && profile.layers[cut].block == profile.layers[starts.back()].block) ++cut;
    }
    if (cut <= first.back() || cut >= profile.layers.size()) {
      throw std::invalid_argument(fmt::format("a split of {} transformer blocks over {} stages leaves stage {} without "
                                              "a layer",
                                              starts.size(), blocks.size(), s));
    }
    first.push_back(cut);
  }
  first.push_back(profile.layers.size());
  return first;
}

/// Megatron-Core's even split: blocks / stages blocks a stage, the embedding and the loss counted as a block each
/// where `split` says so (their stages then hold one block fewer).
std::vector<std::size_t> split_evenly(const ModelProfile& profile, int stages, const StageSplit& split) {
  const auto blocks = static_cast<int>(block_starts(profile).size());
  const int counted = blocks + (split.embedding_as_block ? 1 : 0) + (split.loss_as_block ? 1 : 0);
  if (blocks == 0 || stages < 1 || counted % stages != 0) {
    throw std::invalid_argument(fmt::format(
        "an even split gives each of the {} stages as many of the {} transformer blocks{}, which they do not divide",
        stages, blocks,
        split.embedding_as_block || split.loss_as_block ? " (the embedding or the loss counted as one)" : ""));
  }
  std::vector<int> each(static_cast<std::size_t>(stages), counted / stages);
  if (split.embedding_as_block) --each.front();
  if (split.loss_as_block) --each.back();
  return cut_by_blocks(profile, each);
}

/// A layout's stages, each holding the blocks it names.
std::vector<std::size_t> split_by_layout(const ModelProfile& profile, int stages, const StageSplit& split) {
  const auto blocks = static_cast<int>(block_starts(profile).size());
  if (blocks == 0) {
    throw std::invalid_argument("a layout places transformer blocks, and the model has none");
  }
  int named = 0;
  for (const int count : split.blocks) named += count;
  if (std::cmp_not_equal(split.blocks.size(), stages) || named != blocks) {
    throw std::invalid_argument(fmt::format("the layout names {} stages of {} transformer blocks in all, and the run "
                                            "has {} stages of a model of {} blocks",
                                            split.blocks.size(), named, stages, blocks));
  }
  return cut_by_blocks(profile, split.blocks);
}

}  // namespace

std::vector<std::size_t> split_into_stages(const ModelProfile& profile, int stages, const StageSplit& split) {
  if (split.kind == StageSplit::Kind::Even) return split_evenly(profile, stages, split);
  if (split.kind == StageSplit::Kind::Layout) return split_by_layout(profile, stages, split);
  const std::size_t layers = profile.layers.size();
  // Where a stage may end: after any layer outside the transformer blocks, and between blocks; a cut inside
  // a block would send its attention scores or feed-forward activations between devices.
  std::vector<std::size_t> cuts;
  for (std::size_t end = 1; end < layers; ++end) {
    const int before = profile.layers[end - 1].block;
    if (before < 0 || before != profile.layers[end].block) cuts.push_back(end);
  }
  if (stages < 1 || static_cast<std::size_t>(stages) > cuts.size() + 1) {
    throw std::invalid_argument(fmt::format("{} stages of a model that can be cut into at most {} would leave a "
                                            "stage without a layer or a transformer block",
                                            stages, cuts.size() + 1));
  }
  std::vector<double> cumulative;
  double total = 0.0;
  for (const LayerProfile& layer : profile.layers) {
    total += layer.forward_flops + layer.backward_flops;
    cumulative.push_back(total);
  }
  std::vector<std::size_t> first{0};
  std::size_t lowest = 0;  // the first cut the next boundary may take
  for (int s = 1; s < stages; ++s) {
    const double target = total * s / stages;
    // The cut nearest the target, leaving a cut for each boundary after it.
    const std::size_t highest = cuts.size() - static_cast<std::size_t>(stages - s);
    std::size_t best = lowest;
    for (std::size_t k = lowest; k <= highest; ++k) {
      if (std::abs(cumulative[cuts[k] - 1] - target) < std::abs(cumulative[cuts[best] - 1] - target)) best = k;
    }
    first.push_back(cuts[best]);
    lowest = best + 1;
  }
  first.push_back(layers);
  return first;
}

double peak_activations(const std::vector<PipelinePass>& passes, const std::vector<double>& per_chunk) {
  double held = 0.0;
  double most = 0.0;
  for (const PipelinePass& pass : passes) {
    if (pass.weights) continue;
    held += (pass.forward ? 1.0 : -1.0) * per_chunk.at(static_cast<std::size_t>(pass.chunk));
    most = std::max(most, held);
  }
  return most;
}

double bubble_closed_form(PipelineSchedule schedule, int stages, int microbatches, int chunks, double forward,
                          double input_backward, double weight_backward) {
  const double p = stages;
  const double m = microbatches;
  if (schedule == PipelineSchedule::ZeroBubble) {
    return (p - 1.0) * (forward + input_backward - weight_backward) / (m * (forward + input_backward + weight_backward));
  }
  if (schedule == PipelineSchedule::DualPipe) {
    const double backward = input_backward + weight_backward;
    return (p / 2.0 - 1.0) * (forward + 2.0 * backward - 3.0 * weight_backward) / (m * (forward + backward));
  }
  return (p - 1.0) / (m * (schedule == PipelineSchedule::Interleaved ? chunks : 1));
}

double weight_gradient_flops(const LayerProfile& layer) { return layer.parameters > 0.0 ? layer.backward_flops / 2.0 : 0.0; }

ModelProfile stage_profile(const ModelProfile& profile, std::size_t first, std::size_t last) {
  ModelProfile out{profile.name, profile.description, profile.sample, {}, profile.shape};
  out.layers.assign(profile.layers.begin() + static_cast<std::ptrdiff_t>(first),
                    profile.layers.begin() + static_cast<std::ptrdiff_t>(last));
  return out;
}

}  // namespace dtsim::models
