#pragma once

#include "models/trainable_model.hpp"

#include <cstdint>

namespace dtsim::models {

/// GloVe word embeddings (Pennington, Socher and Manning, 2014) trained on co-occurrence samples (features
/// [i, j], label X(i, j) > 0; see cooccurrence.hpp). Parameters: one row [b_i, w_i] per word, then one row
/// [c_j, v_j] per context word (rows of 1 + dimensions; a batch touches only its words' rows, so every
/// parameter is sparse). Loss: the mean over samples of f(X) (w_i.v_j + b_i + c_j - log X)^2, with
/// f(X) = min(1, (X / x_max)^alpha).
class Glove final : public TrainableModel {
 public:
  /// Vectors start uniform in [-0.5, 0.5) / dimensions from the stream "model/glove" of `seed`, biases at 0.
  Glove(std::size_t words, std::size_t dimensions, double x_max, double alpha, std::uint64_t seed);

  [[nodiscard]] std::size_t parameter_count() const override { return 2 * words_ * (1 + dimensions_); }
  [[nodiscard]] Parameters initial_parameters() const override;
  double loss_and_gradient(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                           Parameters& gradient) const override;
  [[nodiscard]] double loss(const Parameters& parameters, const Dataset& data,
                            std::span<const std::size_t> rows) const override;
  /// Loss, and as accuracy the share of samples whose log X is predicted within 0.5.
  [[nodiscard]] Evaluation evaluate(const Parameters& parameters, const Dataset& data) const override;
  /// Forward: 2d (dot product) + 3 (biases, log X) + 3 (weighted square); backward: 2d (g v, g w) + 2d
  /// (accumulating both rows) + 2 (biases). In total 6d + 8.
  [[nodiscard]] double training_flops_per_sample() const override;
  [[nodiscard]] bool computes_concurrently() const override { return true; }
  /// Per sample, its two ids and count read, its two rows read and their gradient rows written (4 bytes
  /// each).
  [[nodiscard]] double training_bytes(std::size_t batch) const override;
  [[nodiscard]] std::optional<SparseLayout> sparse_layout() const override;
  void touched_rows(const Dataset& data, std::span<const std::size_t> rows, std::vector<std::size_t>& out) const override;

  /// The word's embedding as GloVe reports it: w_i + v_i.
  [[nodiscard]] Eigen::VectorXf embedding(const Parameters& parameters, std::size_t word) const;

 private:
  /// w_i.v_j + b_i + c_j - log X for sample `row`, with the offsets of its two rows.
  [[nodiscard]] double error(const Parameters& parameters, const Dataset& data, std::size_t row, Eigen::Index& word,
                             Eigen::Index& context) const;
  [[nodiscard]] double weight(double count) const;
  void check_shape(const Parameters& parameters, const Dataset& data) const;
  [[nodiscard]] Evaluation over(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                                bool all) const;

  std::size_t words_;
  std::size_t dimensions_;
  double x_max_;
  double alpha_;
  std::uint64_t seed_;
};

}  // namespace dtsim::models
