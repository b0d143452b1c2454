#pragma once
// What the simulator needs from a model it trains for real.

#include "models/dataset.hpp"

#include <span>

namespace dtsim::models {

struct Evaluation {
  double loss = 0.0;
  double accuracy = 0.0;  ///< fraction of samples classified correctly, in [0, 1]
};

class TrainableModel {
 public:
  virtual ~TrainableModel() = default;

  [[nodiscard]] virtual std::size_t parameter_count() const = 0;
  /// Deterministic starting point, the same on every worker.
  [[nodiscard]] virtual Parameters initial_parameters() const = 0;
  /// Mean loss over `rows` of `data`; the mean gradient goes into `gradient` (resized to parameter_count()).
  virtual double loss_and_gradient(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                                   Parameters& gradient) const = 0;
  /// Mean loss over `rows` of `data`, without the gradient.
  [[nodiscard]] virtual double loss(const Parameters& parameters, const Dataset& data,
                                    std::span<const std::size_t> rows) const = 0;
  /// Mean loss and accuracy over the whole of `data`.
  [[nodiscard]] virtual Evaluation evaluate(const Parameters& parameters, const Dataset& data) const = 0;
  /// Floating-point operations of one sample's forward and backward pass.
  [[nodiscard]] virtual double training_flops_per_sample() const = 0;
};

}  // namespace dtsim::models
