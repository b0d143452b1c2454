#pragma once
// What the simulator needs from a model it trains for real.

#include "models/dataset.hpp"

#include <optional>
#include <span>
#include <vector>

namespace dtsim::models {

struct Evaluation {
  double loss = 0.0;
  double accuracy = 0.0;  ///< fraction of samples classified correctly, in [0, 1]
};

/// A model whose parameters are a dense head followed by rows (embeddings) of which a batch touches few:
/// parameters [0, dense) are dense; row r is [dense + r * row_width, dense + (r + 1) * row_width).
struct SparseLayout {
  std::size_t dense = 0;
  std::size_t row_width = 0;
  std::size_t rows = 0;
};

class TrainableModel {
 public:
  virtual ~TrainableModel() = default;

  [[nodiscard]] virtual std::size_t parameter_count() const = 0;
  /// The parameters one sample's pass uses (a mixture's chosen experts only); all of them by default.
  [[nodiscard]] virtual std::size_t active_parameter_count() const { return parameter_count(); }
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
  /// Bytes moved to and from memory by a forward and backward pass over `batch` samples (the roofline's
  /// other side: a device takes at least this over its memory bandwidth).
  [[nodiscard]] virtual double training_bytes(std::size_t batch) const = 0;
  /// Whether loss_and_gradient() may run on several threads at once (for different workers): it keeps no state of
  /// its own between calls. False unless a model says so (a plug-in's model runs on the simulation's thread).
  [[nodiscard]] virtual bool computes_concurrently() const { return false; }
  /// The sparse layout of models with sparse gradients; none for dense models.
  [[nodiscard]] virtual std::optional<SparseLayout> sparse_layout() const { return std::nullopt; }
  /// Sparse models: the rows whose gradient `rows` of `data` can make non-zero, ascending, into `out`.
  virtual void touched_rows(const Dataset& /*data*/, std::span<const std::size_t> /*rows*/,
                            std::vector<std::size_t>& out) const {
    out.clear();
  }
};

}  // namespace dtsim::models
