#pragma once
// The finite-difference check every model's gradient passes: central differences of the loss, step h,
// against the analytic gradient, each within absolute + relative x |numeric|.

#include "models/trainable_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dtsim::models::testing {

inline void expect_gradient_matches_finite_differences(const TrainableModel& model, const Parameters& parameters,
                                                       const Dataset& data, std::span<const std::size_t> rows,
                                                       double absolute, double relative, float step = 1e-2F) {
  Parameters gradient;
  model.loss_and_gradient(parameters, data, rows, gradient);
  ASSERT_EQ(static_cast<std::size_t>(gradient.size()), model.parameter_count());
  for (Eigen::Index i = 0; i < parameters.size(); ++i) {
    Parameters up = parameters;
    Parameters down = parameters;
    up[i] += step;
    down[i] -= step;
    const double numeric = (model.loss(up, data, rows) - model.loss(down, data, rows)) / (2.0 * step);
    EXPECT_NEAR(gradient[i], numeric, absolute + relative * std::abs(numeric)) << "parameter " << i;
  }
}

}  // namespace dtsim::models::testing
