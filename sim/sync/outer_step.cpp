#include "sim/sync/outer_step.hpp"

#include <stdexcept>

namespace dtsim::sync {

double apply_outer_step(std::span<float> global, std::vector<float>& velocity, std::span<const float> outer_gradient,
                        const OuterOptimizer& outer) {
  if (outer_gradient.size() != global.size()) throw std::invalid_argument("an outer gradient of another size");
  const auto rate = static_cast<float>(outer.learning_rate);
  const auto momentum = static_cast<float>(outer.momentum);
  if (momentum == 0.0F) {
    for (std::size_t i = 0; i < global.size(); ++i) global[i] -= rate * outer_gradient[i];
    return 2.0 * static_cast<double>(global.size());
  }
  // PyTorch's first step sets the buffer to the gradient itself (v = g), as v = 0 * momentum + g would.
  velocity.resize(global.size(), 0.0F);
  for (std::size_t i = 0; i < global.size(); ++i) {
    velocity[i] = momentum * velocity[i] + outer_gradient[i];
    const float step = outer.nesterov ? outer_gradient[i] + momentum * velocity[i] : velocity[i];
    global[i] -= rate * step;
  }
  return (outer.nesterov ? 6.0 : 4.0) * static_cast<double>(global.size());
}

}  // namespace dtsim::sync
