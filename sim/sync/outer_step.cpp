#include "sim/sync/outer_step.hpp"

#include <stdexcept>

namespace dtsim::sync {

double outer_step_operations(std::size_t count, const OuterOptimizer& outer) {
  const double per_parameter = outer.momentum == 0.0 ? 2.0 : outer.nesterov ? 6.0 : 4.0;
  return per_parameter * static_cast<double>(count);
}

double apply_outer_step(std::span<float> global, std::vector<float>& velocity, std::span<const float> outer_gradient,
                        const OuterOptimizer& outer) {
  if (outer.momentum != 0.0) velocity.resize(global.size(), 0.0F);
  return apply_outer_step(global, std::span<float>(velocity), outer_gradient, outer);
}

double apply_outer_step(std::span<float> global, std::span<float> velocity, std::span<const float> outer_gradient,
                        const OuterOptimizer& outer) {
  if (outer_gradient.size() != global.size()) throw std::invalid_argument("an outer gradient of another size");
  const auto rate = static_cast<float>(outer.learning_rate);
  const auto momentum = static_cast<float>(outer.momentum);
  if (momentum == 0.0F) {
    for (std::size_t i = 0; i < global.size(); ++i) global[i] -= rate * outer_gradient[i];
    return outer_step_operations(global.size(), outer);
  }
  // PyTorch's first step sets the buffer to the gradient itself (v = g), as v = 0 * momentum + g would.
  if (velocity.size() != global.size()) throw std::invalid_argument("a momentum buffer of another size");
  for (std::size_t i = 0; i < global.size(); ++i) {
    velocity[i] = momentum * velocity[i] + outer_gradient[i];
    const float step = outer.nesterov ? outer_gradient[i] + momentum * velocity[i] : velocity[i];
    global[i] -= rate * step;
  }
  return outer_step_operations(global.size(), outer);
}

}  // namespace dtsim::sync
