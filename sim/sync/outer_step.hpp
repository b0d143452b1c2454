#pragma once
// DiLoCo's outer step on values: SGD with momentum applied to the global parameters with the averaged outer
// gradient.

#include "sim/sync/sync_strategy.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace dtsim::sync {

/// The floating-point operations apply_outer_step() takes on `count` parameters: 2 a parameter for plain SGD, 4
/// with heavy-ball momentum, 6 with Nesterov's.
double outer_step_operations(std::size_t count, const OuterOptimizer& outer);

/// Steps `global` with `outer_gradient` as PyTorch's SGD does (momentum buffer `velocity`, sized on the first
/// step; Nesterov or heavy-ball). Returns the floating-point operations it took.
double apply_outer_step(std::span<float> global, std::vector<float>& velocity, std::span<const float> outer_gradient,
                        const OuterOptimizer& outer);
/// The same on a slice of the parameters (a Streaming DiLoCo fragment), its momentum buffer `velocity` the
/// slice's, zero before the first step.
double apply_outer_step(std::span<float> global, std::span<float> velocity, std::span<const float> outer_gradient,
                        const OuterOptimizer& outer);

}  // namespace dtsim::sync
