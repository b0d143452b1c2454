#pragma once

#include "models/trainable_model.hpp"

namespace dtsim::models {

/// Binary logistic regression: p(y=1|x) = sigmoid(w.x + b). Parameters are [w_1..w_f, b].
/// Loss is the mean cross-entropy, computed as softplus(z) - y z for numerical stability.
class LogisticRegression final : public TrainableModel {
 public:
  explicit LogisticRegression(std::size_t features) : features_(features) {}

  [[nodiscard]] std::size_t parameter_count() const override { return features_ + 1; }
  [[nodiscard]] Parameters initial_parameters() const override;
  double loss_and_gradient(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                           Parameters& gradient) const override;
  [[nodiscard]] double loss(const Parameters& parameters, const Dataset& data,
                            std::span<const std::size_t> rows) const override;
  [[nodiscard]] Evaluation evaluate(const Parameters& parameters, const Dataset& data) const override;
  /// Forward: 2f (dot product) + 1 (bias) + 4 (sigmoid); backward: 1 (residual) + 2f (gradient
  /// accumulation) + 1 (bias gradient). In total 4f + 7.
  [[nodiscard]] double training_flops_per_sample() const override;
  [[nodiscard]] bool computes_concurrently() const override { return true; }
  /// Per sample, its features and label read (4 bytes each); per batch, the weights read twice and their
  /// gradient written.
  [[nodiscard]] double training_bytes(std::size_t batch) const override;

 private:
  std::size_t features_;
};

}  // namespace dtsim::models
