#include "models/memory_footprint.hpp"

#include <stdexcept>

namespace dtsim::models {

MemoryFootprint memory_footprint(const MemoryPlan& plan) {
  if (plan.zero_stage < 0 || plan.zero_stage > 3) throw std::invalid_argument("a ZeRO stage is 0 to 3");
  if (plan.data_parallel < 1 || plan.expert_data_parallel < 1) {
    throw std::invalid_argument("ZeRO partitions over at least one device");
  }
  const double weight = plan.mixed_precision ? 2.0 : 4.0;
  // fp32 training updates its weights in place; mixed precision keeps an fp32 master copy beside the state.
  const double state = 4.0 * (plan.optimizer_values + (plan.mixed_precision ? 1 : 0));
  // Each group of parameters partitioned over its own replicas: the dense over every replica, the experts over
  // those holding the same experts.
  const double dense = plan.parameters - plan.expert_parameters;
  const auto partitioned = [&](int from_stage) {
    if (plan.expert_parameters == 0.0) return plan.parameters / (plan.zero_stage >= from_stage ? plan.data_parallel : 1.0);
    return dense / (plan.zero_stage >= from_stage ? plan.data_parallel : 1.0) +
           plan.expert_parameters / (plan.zero_stage >= from_stage ? plan.expert_data_parallel : 1.0);
  };
  MemoryFootprint out;
  out.parameters = weight * partitioned(3);
  out.gradients = (plan.gradient_bytes > 0.0 ? plan.gradient_bytes : weight) * partitioned(2);
  out.optimizer = state * partitioned(1);
  out.activations = plan.activation_bytes_per_sample * static_cast<double>(plan.samples) *
                    (plan.mixed_precision ? 0.5 : 1.0);
  return out;
}

}  // namespace dtsim::models
