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
  if (stages < 1 || static_cast<std::size_t>(stages) > layers) {
    throw std::invalid_argument(fmt::format("{} stages of a model of {} layers would leave a stage without one",
                                            stages, layers));
  }
  std::vector<double> cumulative;
  double total = 0.0;
  for (const LayerProfile& layer : profile.layers) {
    total += layer.forward_flops + layer.backward_flops;
    cumulative.push_back(total);
  }
  std::vector<std::size_t> first{0};
  for (int s = 1; s < stages; ++s) {
    const double target = total * s / stages;
    // The boundary after layer i: nearest the target, leaving a layer for each stage before and after.
    const std::size_t lowest = first.back() + 1;
    const std::size_t highest = layers - static_cast<std::size_t>(stages - s);
    std::size_t best = lowest;
    for (std::size_t end = lowest; end <= highest; ++end) {
      if (std::abs(cumulative[end - 1] - target) < std::abs(cumulative[best - 1] - target)) best = end;
    }
    first.push_back(best);
  }
  first.push_back(layers);
  return first;
}

ModelProfile stage_profile(const ModelProfile& profile, std::size_t first, std::size_t last) {
  ModelProfile out{profile.name, profile.description, profile.sample, {}};
  out.layers.assign(profile.layers.begin() + static_cast<std::ptrdiff_t>(first),
                    profile.layers.begin() + static_cast<std::ptrdiff_t>(last));
  return out;
}

}  // namespace dtsim::models
