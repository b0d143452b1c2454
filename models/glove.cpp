#include "models/glove.hpp"

#include "models/pair_rows.hpp"
#include "sim/core/rng.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dtsim::models {

Glove::Glove(std::size_t words, std::size_t dimensions, double x_max, double alpha, std::uint64_t seed)
    : words_(words), dimensions_(dimensions), x_max_(x_max), alpha_(alpha), seed_(seed) {
  if (words == 0 || dimensions == 0 || !(x_max > 0.0) || !(alpha > 0.0)) {
    throw std::invalid_argument("glove needs words, dimensions, x_max > 0 and alpha > 0");
  }
}

Parameters Glove::initial_parameters() const {
  core::RandomEngine engine = core::random_stream(seed_, "model/glove");
  Parameters out = Parameters::Zero(static_cast<Eigen::Index>(parameter_count()));
  const std::size_t width = 1 + dimensions_;
  for (std::size_t row = 0; row < 2 * words_; ++row) {
    for (std::size_t k = 1; k < width; ++k) {
      out[static_cast<Eigen::Index>(row * width + k)] =
          static_cast<float>((core::uniform01(engine) - 0.5) / static_cast<double>(dimensions_));
    }
  }
  return out;
}

void Glove::check_shape(const Parameters& parameters, const Dataset& data) const {
  if (static_cast<std::size_t>(parameters.size()) != parameter_count() || data.feature_count() != 2) {
    throw std::invalid_argument("glove: parameters or data do not match the model");
  }
}

double Glove::weight(double count) const { return count >= x_max_ ? 1.0 : std::pow(count / x_max_, alpha_); }

double Glove::error(const Parameters& parameters, const Dataset& data, std::size_t row, Eigen::Index& word,
                    Eigen::Index& context) const {
  const auto width = static_cast<Eigen::Index>(1 + dimensions_);
  const auto i = static_cast<std::size_t>(data.features(static_cast<Eigen::Index>(row), 0));
  const auto j = static_cast<std::size_t>(data.features(static_cast<Eigen::Index>(row), 1));
  if (i >= words_ || j >= words_) throw std::out_of_range("glove: a word id outside the vocabulary");
  word = static_cast<Eigen::Index>(i) * width;
  context = static_cast<Eigen::Index>(words_ + j) * width;
  const auto d = static_cast<Eigen::Index>(dimensions_);
  return static_cast<double>(parameters.segment(word + 1, d).dot(parameters.segment(context + 1, d))) +
         parameters[word] + parameters[context] - std::log(static_cast<double>(data.labels[static_cast<Eigen::Index>(row)]));
}

double Glove::loss_and_gradient(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                                Parameters& gradient) const {
  check_shape(parameters, data);
  gradient = Parameters::Zero(parameters.size());
  if (rows.empty()) return 0.0;
  const auto d = static_cast<Eigen::Index>(dimensions_);
  const double share = 1.0 / static_cast<double>(rows.size());
  double total = 0.0;
  for (const std::size_t row : rows) {
    Eigen::Index word = 0;
    Eigen::Index context = 0;
    const double e = error(parameters, data, row, word, context);
    const double f = weight(data.labels[static_cast<Eigen::Index>(row)]);
    total += f * e * e;
    const auto g = static_cast<float>(2.0 * f * e * share);
    gradient[word] += g;
    gradient[context] += g;
    gradient.segment(word + 1, d) += g * parameters.segment(context + 1, d);
    gradient.segment(context + 1, d) += g * parameters.segment(word + 1, d);
  }
  return total * share;
}

Evaluation Glove::over(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                       bool all) const {
  check_shape(parameters, data);
  const std::size_t count = all ? data.size() : rows.size();
  if (count == 0) return {};
  double total = 0.0;
  std::size_t close = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t row = all ? k : rows[k];
    Eigen::Index word = 0;
    Eigen::Index context = 0;
    const double e = error(parameters, data, row, word, context);
    total += weight(data.labels[static_cast<Eigen::Index>(row)]) * e * e;
    close += std::abs(e) < 0.5 ? 1 : 0;
  }
  return {total / static_cast<double>(count), static_cast<double>(close) / static_cast<double>(count)};
}

double Glove::loss(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows) const {
  return over(parameters, data, rows, false).loss;
}

Evaluation Glove::evaluate(const Parameters& parameters, const Dataset& data) const {
  return over(parameters, data, {}, true);
}

double Glove::training_flops_per_sample() const { return 6.0 * static_cast<double>(dimensions_) + 8.0; }

double Glove::training_bytes(std::size_t batch) const {
  return 4.0 * (3.0 + 4.0 * static_cast<double>(1 + dimensions_)) * static_cast<double>(batch);
}

std::optional<SparseLayout> Glove::sparse_layout() const { return SparseLayout{0, 1 + dimensions_, 2 * words_}; }

void Glove::touched_rows(const Dataset& data, std::span<const std::size_t> rows, std::vector<std::size_t>& out) const {
  pair_rows(data, rows, words_, out);
}

Eigen::VectorXf Glove::embedding(const Parameters& parameters, std::size_t word) const {
  const auto width = static_cast<Eigen::Index>(1 + dimensions_);
  const auto d = static_cast<Eigen::Index>(dimensions_);
  return parameters.segment(static_cast<Eigen::Index>(word) * width + 1, d) +
         parameters.segment(static_cast<Eigen::Index>(words_ + word) * width + 1, d);
}

}  // namespace dtsim::models
