#include "models/pipeline_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dtsim::models {

std::vector<PipelinePass> pipeline_passes(PipelineSchedule schedule, int stages, int stage, int microbatches) {
  std::vector<PipelinePass> out;
  if (schedule == PipelineSchedule::GPipe) {
    for (int m = 0; m < microbatches; ++m) out.push_back({true, m});
    for (int m = 0; m < microbatches; ++m) out.push_back({false, m});
    return out;
  }
  // 1F1B (PipeDream-Flush): the last stage alternates at once; each earlier stage runs one more forward
  // first, so that a backward is ready for it when its warm-up ends.
  const int warmup = std::min(stages - stage - 1, microbatches);
  int forward = 0;
  int backward = 0;
  for (; forward < warmup; ++forward) out.push_back({true, forward});
  while (forward < microbatches) {
    out.push_back({true, forward++});
    out.push_back({false, backward++});
  }
  while (backward < microbatches) out.push_back({false, backward++});
  return out;
}

int activations_in_flight(const std::vector<PipelinePass>& passes) {
  int held = 0;
  int most = 0;
  for (const PipelinePass& pass : passes) {
    held += pass.forward ? 1 : -1;
    most = std::max(most, held);
  }
  return most;
}

std::vector<std::size_t> split_into_stages(const ModelProfile& profile, int stages) {
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

ModelProfile stage_profile(const ModelProfile& profile, std::size_t first, std::size_t last) {
  ModelProfile out{profile.name, profile.description, profile.sample, {}, profile.shape};
  out.layers.assign(profile.layers.begin() + static_cast<std::ptrdiff_t>(first),
                    profile.layers.begin() + static_cast<std::ptrdiff_t>(last));
  return out;
}

}  // namespace dtsim::models
