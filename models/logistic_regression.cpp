#include "models/logistic_regression.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace dtsim::models {
namespace {

double softplus(double z) { return std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z))); }

Eigen::VectorXf logits(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                       std::size_t features) {
  const auto f = static_cast<Eigen::Index>(features);
  const std::vector<Eigen::Index> index(rows.begin(), rows.end());
  Eigen::VectorXf z = data.features(index, Eigen::all) * parameters.head(f);
  z.array() += parameters[f];
  return z;
}

double mean_cross_entropy(const Eigen::VectorXf& z, const Dataset& data, std::span<const std::size_t> rows) {
  // Accumulated in double so that the loss is accurate enough for finite differences in float parameters.
  double total = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double logit = z[static_cast<Eigen::Index>(i)];
    total += softplus(logit) - data.labels[static_cast<Eigen::Index>(rows[i])] * logit;
  }
  return rows.empty() ? 0.0 : total / static_cast<double>(rows.size());
}

void check_shape(const Parameters& parameters, const Dataset& data, std::size_t features) {
  if (static_cast<std::size_t>(parameters.size()) != features + 1 || data.feature_count() != features) {
    throw std::invalid_argument("logistic regression: parameter or feature count does not match the model");
  }
}

}  // namespace

Parameters LogisticRegression::initial_parameters() const {
  return Parameters::Zero(static_cast<Eigen::Index>(parameter_count()));
}

double LogisticRegression::loss_and_gradient(const Parameters& parameters, const Dataset& data,
                                             std::span<const std::size_t> rows, Parameters& gradient) const {
  check_shape(parameters, data, features_);
  const auto f = static_cast<Eigen::Index>(features_);
  const Eigen::VectorXf z = logits(parameters, data, rows, features_);
  const std::vector<Eigen::Index> index(rows.begin(), rows.end());
  const Eigen::VectorXf residual = (1.0F / (1.0F + (-z.array()).exp())).matrix() - data.labels(index);
  const float scale = 1.0F / static_cast<float>(rows.size());
  gradient.resize(f + 1);
  gradient.head(f).noalias() = data.features(index, Eigen::all).transpose() * residual * scale;
  gradient[f] = residual.sum() * scale;
  return mean_cross_entropy(z, data, rows);
}

double LogisticRegression::loss(const Parameters& parameters, const Dataset& data,
                                std::span<const std::size_t> rows) const {
  check_shape(parameters, data, features_);
  return mean_cross_entropy(logits(parameters, data, rows, features_), data, rows);
}

Evaluation LogisticRegression::evaluate(const Parameters& parameters, const Dataset& data) const {
  check_shape(parameters, data, features_);
  if (data.size() == 0) return {};
  const auto f = static_cast<Eigen::Index>(features_);
  Eigen::VectorXf z = data.features * parameters.head(f);
  z.array() += parameters[f];
  double total = 0.0;
  std::size_t correct = 0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    total += softplus(z[i]) - data.labels[i] * static_cast<double>(z[i]);
    if ((z[i] > 0.0F) == (data.labels[i] > 0.5F)) ++correct;
  }
  const auto n = static_cast<double>(data.size());
  return {total / n, static_cast<double>(correct) / n};
}

double LogisticRegression::training_flops_per_sample() const { return 4.0 * static_cast<double>(features_) + 7.0; }

double LogisticRegression::training_bytes(std::size_t batch) const {
  return 4.0 * static_cast<double>(features_ + 1) * static_cast<double>(batch) + 12.0 * static_cast<double>(features_ + 1);
}

}  // namespace dtsim::models
