#pragma once
// Optimizers: how a gradient becomes an update. Each holder of parameters (a worker, a server's shard)
// owns one, with state for the parameters it updates.

#include "models/dataset.hpp"
#include "sim/core/parameter_values.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/schema.hpp"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace dtsim::models {

struct OptimizerSettings {
  std::string kind = "sgd";  ///< a registered optimizer; the fields below are its keys where it declares them
  double learning_rate = 0.1;
  double momentum = 0.9;  ///< momentum
  double beta1 = 0.9;     ///< adam
  double beta2 = 0.999;   ///< adam
  double epsilon = 1e-8;  ///< adam
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  /// Starts an update: every update() until the next begin_update() belongs to it (Adam counts them), and
  /// takes its step at `learning_rate_scale` x the learning rate (staleness-aware SGD's lr / tau). Scaling
  /// the rate, not the gradient, keeps the factor under optimizers that normalise the gradient (Adam).
  void begin_update(double learning_rate_scale = 1.0) {
    rate_scale_ = learning_rate_scale;
    on_begin_update();
  }
  /// Updates `parameters` with `gradient` (same length), which sit at `offset` in the vector the optimizer's
  /// state was made for: state is kept per position, so an update may touch a few segments only (sparse rows).
  virtual void update(std::span<float> parameters, std::span<const float> gradient, std::size_t offset) = 0;
  /// FLOPs of updating `count` parameters.
  [[nodiscard]] virtual double flops(std::size_t count) const = 0;

  /// Values of state kept per parameter (0 for SGD, 1 for momentum, 2 for Adam): what a checkpoint saves
  /// beside the parameters.
  [[nodiscard]] virtual int state_per_parameter() const = 0;
  /// A copy with the same state (for checkpoints).
  [[nodiscard]] virtual std::unique_ptr<Optimizer> clone() const = 0;

  /// One whole update of all the parameters.
  void apply(Parameters& parameters, const Parameters& gradient);

 protected:
  virtual void on_begin_update() {}
  /// The factor begin_update() put on the learning rate for the current update.
  [[nodiscard]] double rate_scale() const { return rate_scale_; }

 private:
  double rate_scale_ = 1.0;
};

/// An optimizer as a plug-in, the whole of it in its registry entry: its own parameters (beside
/// `training.optimizer.kind` and `learning_rate`, which every optimizer has), a factory reading their values
/// (for state of `size` parameters), and an example `training.optimizer`.
struct OptimizerPlugin {
  std::vector<core::SchemaNode> parameters;
  std::function<std::unique_ptr<Optimizer>(double learning_rate, const core::ParameterValues&, std::size_t size)> make;
  std::string example;
};

using OptimizerRegistry = core::Registry<OptimizerPlugin>;

/// Adds sgd, momentum and adam. Called from main (no self-registering statics).
void register_builtin_optimizers(OptimizerRegistry& registry);

/// The optimizer `settings` name, with state for `size` parameters (for tests and benchmarks that build
/// one directly), built by its registry entry from the settings. Throws std::invalid_argument for an unknown kind.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerSettings& settings, std::size_t size);

}  // namespace dtsim::models
