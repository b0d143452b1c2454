#pragma once

#include "models/trainable_model.hpp"

#include <cstdint>

namespace dtsim::models {

/// Biased matrix factorization for ratings: r(a, b) = mu + b_a + c_b + p_a.q_b, for user a and item b (the
/// two features of a sample; the label is the rating). Parameters: [mu], then one row [b_a, p_a] per user,
/// then one row [c_b, q_b] per item (rows of 1 + dimensions): mu is dense, the rows sparse, since a batch
/// touches only its users' and items' rows. Loss: the mean of (r - rating)^2 / 2.
class MatrixFactorization final : public TrainableModel {
 public:
  /// Factors start N(0, 0.1^2) from the stream "model/matrix_factorization" of `seed`, biases at 0.
  MatrixFactorization(std::size_t users, std::size_t items, std::size_t dimensions, std::uint64_t seed);

  [[nodiscard]] std::size_t parameter_count() const override { return 1 + (users_ + items_) * (1 + dimensions_); }
  [[nodiscard]] Parameters initial_parameters() const override;
  double loss_and_gradient(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                           Parameters& gradient) const override;
  [[nodiscard]] double loss(const Parameters& parameters, const Dataset& data,
                            std::span<const std::size_t> rows) const override;
  /// Loss, and as accuracy the share of predictions within half a rating point.
  [[nodiscard]] Evaluation evaluate(const Parameters& parameters, const Dataset& data) const override;
  /// Forward: 2d (dot product) + 3 (biases) + 1 (error); backward: 2d (e q, e p) + 2d + 3 (accumulating the
  /// two rows and the three biases). In total 6d + 7.
  [[nodiscard]] double training_flops_per_sample() const override;
  [[nodiscard]] bool computes_concurrently() const override { return true; }
  /// Per sample, its two indices and rating read, its two rows read and their gradient rows written (4
  /// bytes each).
  [[nodiscard]] double training_bytes(std::size_t batch) const override;
  [[nodiscard]] std::optional<SparseLayout> sparse_layout() const override;
  void touched_rows(const Dataset& data, std::span<const std::size_t> rows, std::vector<std::size_t>& out) const override;

 private:
  /// The prediction for sample `row`, with the offsets of its user's and item's rows.
  [[nodiscard]] double predict(const Parameters& parameters, const Dataset& data, std::size_t row, Eigen::Index& user,
                               Eigen::Index& item) const;
  void check_shape(const Parameters& parameters, const Dataset& data) const;
  /// Loss and accuracy over `rows` of `data`, or over all of it when `all`.
  [[nodiscard]] Evaluation over(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                                bool all) const;

  std::size_t users_;
  std::size_t items_;
  std::size_t dimensions_;
  std::uint64_t seed_;
};

}  // namespace dtsim::models
