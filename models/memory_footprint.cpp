#include "models/memory_footprint.hpp"

#include <stdexcept>

namespace dtsim::models {

MemoryFootprint memory_footprint(const MemoryPlan& plan) {
  if (plan.zero_stage < 0 || plan.zero_stage > 3) throw std::invalid_argument("a ZeRO stage is 0 to 3");
  if (plan.data_parallel < 1) throw std::invalid_argument("ZeRO partitions over at least one device");
  const double weight = plan.mixed_precision ? 2.0 : 4.0;
  // fp32 training updates its weights in place; mixed precision keeps an fp32 master copy beside the state.
  const double state = 4.0 * (plan.optimizer_values + (plan.mixed_precision ? 1 : 0));
  const double n = plan.data_parallel;
  const double psi = plan.parameters;
  MemoryFootprint out;
  out.parameters = weight * psi / (plan.zero_stage >= 3 ? n : 1.0);
  out.gradients = weight * psi / (plan.zero_stage >= 2 ? n : 1.0);
  out.optimizer = state * psi / (plan.zero_stage >= 1 ? n : 1.0);
  out.activations = plan.activation_bytes_per_sample * static_cast<double>(plan.samples) *
                    (plan.mixed_precision ? 0.5 : 1.0);
  return out;
}

}  // namespace dtsim::models
