#pragma once
// The double-precision check path: each model family's loss written again in double, independently of the
// float code, and the float analytic gradient checked against central differences of that double loss
// (step 1e-6, where float differences would drown in rounding). The reference must also agree with the
// model's own loss, so that both are the same function.

#include "models/trainable_model.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <cmath>
#include <functional>
#include <span>
#include <vector>

namespace dtsim::models::testing {

using DoubleLoss = std::function<double(const Eigen::VectorXd& parameters)>;

inline void expect_gradient_matches_double_differences(const TrainableModel& model, const Parameters& parameters,
                                                       const Dataset& data, std::span<const std::size_t> rows,
                                                       const DoubleLoss& reference, double tolerance) {
  const Eigen::VectorXd at = parameters.cast<double>();
  const double own = model.loss(parameters, data, rows);
  ASSERT_NEAR(reference(at), own, 1e-5 * std::max(1.0, std::abs(own))) << "the reference is another function";
  Parameters gradient;
  model.loss_and_gradient(parameters, data, rows, gradient);
  const double scale = std::max(1e-3, static_cast<double>(gradient.cwiseAbs().maxCoeff()));
  constexpr double kStep = 1e-6;
  for (Eigen::Index i = 0; i < at.size(); ++i) {
    Eigen::VectorXd up = at;
    Eigen::VectorXd down = at;
    up[i] += kStep;
    down[i] -= kStep;
    const double numeric = (reference(up) - reference(down)) / (2.0 * kStep);
    EXPECT_NEAR(gradient[i], numeric, tolerance * scale) << "parameter " << i;
  }
}

/// Mean softplus(z) - y z, z = w.x + b; parameters [w, b].
inline DoubleLoss logistic_loss(const Dataset& data, std::span<const std::size_t> rows) {
  return [&data, rows](const Eigen::VectorXd& p) {
    const auto f = static_cast<Eigen::Index>(data.feature_count());
    double total = 0.0;
    for (const std::size_t row : rows) {
      const auto r = static_cast<Eigen::Index>(row);
      const double z = p.head(f).dot(data.features.row(r).transpose().cast<double>()) + p[f];
      total += std::log1p(std::exp(-std::abs(z))) + std::max(z, 0.0) - data.labels[r] * z;
    }
    return total / static_cast<double>(rows.size());
  };
}

/// Dense layers of `widths` (features, hidden..., classes): per layer out x in weights (row-major), then
/// biases; relu or tanh between layers; mean softmax cross-entropy.
inline DoubleLoss dense_loss(const Dataset& data, std::span<const std::size_t> rows, std::vector<std::size_t> widths,
                             bool tanh) {
  return [&data, rows, widths, tanh](const Eigen::VectorXd& p) {
    double total = 0.0;
    for (const std::size_t row : rows) {
      Eigen::VectorXd a = data.features.row(static_cast<Eigen::Index>(row)).transpose().cast<double>();
      Eigen::Index offset = 0;
      for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
        const auto in = static_cast<Eigen::Index>(widths[l]);
        const auto out = static_cast<Eigen::Index>(widths[l + 1]);
        Eigen::VectorXd z(out);
        for (Eigen::Index o = 0; o < out; ++o) z[o] = p.segment(offset + o * in, in).dot(a) + p[offset + in * out + o];
        offset += in * out + out;
        a = l + 2 < widths.size() ? (tanh ? Eigen::VectorXd(z.array().tanh()) : Eigen::VectorXd(z.cwiseMax(0.0))) : z;
      }
      const double top = a.maxCoeff();
      const double log_sum = std::log((a.array() - top).exp().sum()) + top;
      total += log_sum - a[static_cast<Eigen::Index>(data.labels[static_cast<Eigen::Index>(row)])];
    }
    return total / static_cast<double>(rows.size());
  };
}

/// Rows [bias, vector] for `first` ids then `second` ids after `dense` leading parameters; the prediction
/// of sample r is p[0] (when dense) + bias_a + bias_b + vector_a . vector_b.
inline double row_prediction(const Eigen::VectorXd& p, Eigen::Index dense, Eigen::Index width, Eigen::Index a,
                             Eigen::Index b) {
  const Eigen::Index ra = dense + a * width;
  const Eigen::Index rb = dense + b * width;
  return (dense > 0 ? p[0] : 0.0) + p[ra] + p[rb] + p.segment(ra + 1, width - 1).dot(p.segment(rb + 1, width - 1));
}

/// Mean (mu + b_u + c_i + p_u.q_i - r)^2 / 2 over ratings of `users` users.
inline DoubleLoss matrix_factorization_loss(const Dataset& data, std::span<const std::size_t> rows, std::size_t users,
                                            std::size_t dimensions) {
  return [&data, rows, users, dimensions](const Eigen::VectorXd& p) {
    double total = 0.0;
    for (const std::size_t row : rows) {
      const auto r = static_cast<Eigen::Index>(row);
      const auto u = static_cast<Eigen::Index>(data.features(r, 0));
      const auto i = static_cast<Eigen::Index>(users + static_cast<std::size_t>(data.features(r, 1)));
      const double e = row_prediction(p, 1, static_cast<Eigen::Index>(1 + dimensions), u, i) - data.labels[r];
      total += 0.5 * e * e;
    }
    return total / static_cast<double>(rows.size());
  };
}

/// Mean f(X) (w_i.v_j + b_i + c_j - log X)^2, f(X) = min(1, (X / x_max)^alpha), over `words` words.
inline DoubleLoss glove_loss(const Dataset& data, std::span<const std::size_t> rows, std::size_t words,
                             std::size_t dimensions, double x_max, double alpha) {
  return [&data, rows, words, dimensions, x_max, alpha](const Eigen::VectorXd& p) {
    double total = 0.0;
    for (const std::size_t row : rows) {
      const auto r = static_cast<Eigen::Index>(row);
      const double x = data.labels[r];
      const auto i = static_cast<Eigen::Index>(data.features(r, 0));
      const auto j = static_cast<Eigen::Index>(words + static_cast<std::size_t>(data.features(r, 1)));
      const double e = row_prediction(p, 0, static_cast<Eigen::Index>(1 + dimensions), i, j) - std::log(x);
      total += std::min(1.0, std::pow(x / x_max, alpha)) * e * e;
    }
    return total / static_cast<double>(rows.size());
  };
}

}  // namespace dtsim::models::testing
