#pragma once

#include "models/dataset.hpp"

#include <span>

namespace dtsim::models {

/// Plain stochastic gradient descent: parameters -= learning_rate * gradient.
class Sgd {
 public:
  explicit Sgd(double learning_rate) : learning_rate_(static_cast<float>(learning_rate)) {}

  void apply(Parameters& parameters, const Parameters& gradient) const;
  /// The same on a segment of parameters and its gradient.
  void step(std::span<float> parameters, std::span<const float> gradient) const;
  /// One multiply and one subtraction per parameter.
  [[nodiscard]] static double flops(std::size_t parameter_count) { return 2.0 * static_cast<double>(parameter_count); }

 private:
  float learning_rate_;
};

}  // namespace dtsim::models
