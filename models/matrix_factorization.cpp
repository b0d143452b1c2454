#include "models/matrix_factorization.hpp"

#include "models/pair_rows.hpp"
#include "sim/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dtsim::models {

MatrixFactorization::MatrixFactorization(std::size_t users, std::size_t items, std::size_t dimensions, std::uint64_t seed)
    : users_(users), items_(items), dimensions_(dimensions), seed_(seed) {
  if (users == 0 || items == 0 || dimensions == 0) {
    throw std::invalid_argument("matrix factorization needs users, items and dimensions");
  }
}

Parameters MatrixFactorization::initial_parameters() const {
  core::RandomEngine engine = core::random_stream(seed_, "model/matrix_factorization");
  Parameters out = Parameters::Zero(static_cast<Eigen::Index>(parameter_count()));
  const std::size_t width = 1 + dimensions_;
  for (std::size_t row = 0; row < users_ + items_; ++row) {
    for (std::size_t k = 1; k < width; ++k) {
      out[static_cast<Eigen::Index>(1 + row * width + k)] = static_cast<float>(0.1 * core::standard_normal(engine));
    }
  }
  return out;
}

void MatrixFactorization::check_shape(const Parameters& parameters, const Dataset& data) const {
  if (static_cast<std::size_t>(parameters.size()) != parameter_count() || data.feature_count() != 2) {
    throw std::invalid_argument("matrix factorization: parameters or data do not match the model");
  }
}

double MatrixFactorization::predict(const Parameters& parameters, const Dataset& data, std::size_t row,
                                    Eigen::Index& user, Eigen::Index& item) const {
  const auto width = static_cast<Eigen::Index>(1 + dimensions_);
  const auto a = static_cast<std::size_t>(data.features(static_cast<Eigen::Index>(row), 0));
  const auto b = static_cast<std::size_t>(data.features(static_cast<Eigen::Index>(row), 1));
  if (a >= users_ || b >= items_) throw std::out_of_range("matrix factorization: a rating outside the matrix");
  user = 1 + static_cast<Eigen::Index>(a) * width;
  item = 1 + static_cast<Eigen::Index>(users_ + b) * width;
  const auto d = static_cast<Eigen::Index>(dimensions_);
  return static_cast<double>(parameters[0]) + parameters[user] + parameters[item] +
         parameters.segment(user + 1, d).dot(parameters.segment(item + 1, d));
}

double MatrixFactorization::loss_and_gradient(const Parameters& parameters, const Dataset& data,
                                              std::span<const std::size_t> rows, Parameters& gradient) const {
  check_shape(parameters, data);
  gradient = Parameters::Zero(parameters.size());
  if (rows.empty()) return 0.0;
  const auto d = static_cast<Eigen::Index>(dimensions_);
  const auto share = static_cast<float>(1.0 / static_cast<double>(rows.size()));
  double total = 0.0;
  for (const std::size_t row : rows) {
    Eigen::Index user = 0;
    Eigen::Index item = 0;
    const double error = predict(parameters, data, row, user, item) - data.labels[static_cast<Eigen::Index>(row)];
    total += 0.5 * error * error;
    const float e = static_cast<float>(error) * share;
    gradient[0] += e;
    gradient[user] += e;
    gradient[item] += e;
    gradient.segment(user + 1, d) += e * parameters.segment(item + 1, d);
    gradient.segment(item + 1, d) += e * parameters.segment(user + 1, d);
  }
  return total / static_cast<double>(rows.size());
}

Evaluation MatrixFactorization::over(const Parameters& parameters, const Dataset& data,
                                     std::span<const std::size_t> rows, bool all) const {
  check_shape(parameters, data);
  const std::size_t count = all ? data.size() : rows.size();
  if (count == 0) return {};
  double total = 0.0;
  std::size_t close = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t row = all ? i : rows[i];
    Eigen::Index user = 0;
    Eigen::Index item = 0;
    const double error = predict(parameters, data, row, user, item) - data.labels[static_cast<Eigen::Index>(row)];
    total += 0.5 * error * error;
    close += std::abs(error) < 0.5 ? 1 : 0;
  }
  return {total / static_cast<double>(count), static_cast<double>(close) / static_cast<double>(count)};
}

double MatrixFactorization::loss(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows) const {
  return over(parameters, data, rows, false).loss;
}

Evaluation MatrixFactorization::evaluate(const Parameters& parameters, const Dataset& data) const {
  return over(parameters, data, {}, true);
}

double MatrixFactorization::training_flops_per_sample() const { return 6.0 * static_cast<double>(dimensions_) + 7.0; }

double MatrixFactorization::training_bytes(std::size_t batch) const {
  return 4.0 * (3.0 + 4.0 * static_cast<double>(1 + dimensions_)) * static_cast<double>(batch);
}

std::optional<SparseLayout> MatrixFactorization::sparse_layout() const {
  return SparseLayout{1, 1 + dimensions_, users_ + items_};
}

void MatrixFactorization::touched_rows(const Dataset& data, std::span<const std::size_t> rows,
                                       std::vector<std::size_t>& out) const {
  pair_rows(data, rows, users_, out);
}

}  // namespace dtsim::models
