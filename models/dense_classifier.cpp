#include "models/dense_classifier.hpp"

#include "sim/core/rng.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace dtsim::models {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using WeightMap = Eigen::Map<const Matrix>;
using GradientMap = Eigen::Map<Matrix>;

}  // namespace

DenseClassifier::DenseClassifier(std::size_t features, std::vector<std::size_t> hidden, Activation activation,
                                 std::size_t classes, std::uint64_t seed)
    : activation_(activation), classes_(classes), seed_(seed) {
  if (features == 0 || classes < 2) throw std::invalid_argument("a classifier needs features and at least two classes");
  std::size_t in = features;
  hidden.push_back(classes);
  for (const std::size_t out : hidden) {
    if (out == 0) throw std::invalid_argument("a layer of width 0");
    layers_.push_back({in, out, parameter_count_});
    parameter_count_ += in * out + out;
    in = out;
  }
}

Parameters DenseClassifier::initial_parameters() const {
  Parameters out = Parameters::Zero(static_cast<Eigen::Index>(parameter_count_));
  if (layers_.size() == 1) return out;
  core::RandomEngine engine = core::random_stream(seed_, "model/dense_classifier");
  for (const Layer& layer : layers_) {
    const double limit = std::sqrt(6.0 / static_cast<double>(layer.in + layer.out));
    for (std::size_t i = 0; i < layer.in * layer.out; ++i) {
      out[static_cast<Eigen::Index>(layer.offset + i)] = static_cast<float>(limit * (2.0 * core::uniform01(engine) - 1.0));
    }
  }
  return out;
}

void DenseClassifier::check_shape(const Parameters& parameters, const Dataset& data) const {
  if (static_cast<std::size_t>(parameters.size()) != parameter_count_ || data.feature_count() != layers_.front().in) {
    throw std::invalid_argument("dense classifier: parameter or feature count does not match the model");
  }
}

double DenseClassifier::run(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                            bool all, Parameters* gradient, std::size_t* correct) const {
  check_shape(parameters, data);
  const Eigen::Index n = all ? static_cast<Eigen::Index>(data.size()) : static_cast<Eigen::Index>(rows.size());
  if (gradient != nullptr) *gradient = Parameters::Zero(static_cast<Eigen::Index>(parameter_count_));
  if (n == 0) return 0.0;
  std::vector<Matrix> activations;  // the input, then every hidden layer's output
  if (all) {
    activations.emplace_back(data.features);
  } else {
    const std::vector<Eigen::Index> index(rows.begin(), rows.end());
    activations.emplace_back(data.features(index, Eigen::all));
  }
  Matrix logits;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    const WeightMap weights(parameters.data() + layer.offset, static_cast<Eigen::Index>(layer.out),
                            static_cast<Eigen::Index>(layer.in));
    const auto biases = parameters.segment(static_cast<Eigen::Index>(layer.offset + layer.in * layer.out),
                                           static_cast<Eigen::Index>(layer.out));
    Matrix z = activations.back() * weights.transpose();
    z.rowwise() += biases.transpose();
    if (l + 1 == layers_.size()) {
      logits = std::move(z);
    } else {
      activations.emplace_back(activation_ == Activation::Relu ? Matrix(z.cwiseMax(0.0F)) : Matrix(z.array().tanh()));
    }
  }
  // Softmax cross-entropy, row by row, in double for an accurate loss.
  double total = 0.0;
  Matrix delta(n, static_cast<Eigen::Index>(classes_));
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto label = static_cast<Eigen::Index>(data.labels[all ? i : static_cast<Eigen::Index>(rows[static_cast<std::size_t>(i)])]);
    Eigen::Index best = 0;
    const double top = logits.row(i).maxCoeff(&best);
    double sum = 0.0;
    for (Eigen::Index k = 0; k < logits.cols(); ++k) sum += std::exp(static_cast<double>(logits(i, k)) - top);
    total += std::log(sum) + top - logits(i, label);
    if (correct != nullptr && best == label) ++*correct;
    if (gradient != nullptr) {
      for (Eigen::Index k = 0; k < logits.cols(); ++k) {
        const double probability = std::exp(static_cast<double>(logits(i, k)) - top) / sum;
        delta(i, k) = static_cast<float>((probability - (k == label ? 1.0 : 0.0)) / static_cast<double>(n));
      }
    }
  }
  if (gradient != nullptr) {
    for (std::size_t l = layers_.size(); l-- > 0;) {
      const Layer& layer = layers_[l];
      const Matrix& input = activations[l];
      GradientMap weights_gradient(gradient->data() + layer.offset, static_cast<Eigen::Index>(layer.out),
                                   static_cast<Eigen::Index>(layer.in));
      weights_gradient.noalias() = delta.transpose() * input;
      gradient->segment(static_cast<Eigen::Index>(layer.offset + layer.in * layer.out), static_cast<Eigen::Index>(layer.out)) =
          delta.colwise().sum().transpose();
      if (l == 0) break;
      const WeightMap weights(parameters.data() + layer.offset, static_cast<Eigen::Index>(layer.out),
                              static_cast<Eigen::Index>(layer.in));
      Matrix back = delta * weights;
      // The derivative of the activation, from its output.
      if (activation_ == Activation::Relu) {
        back.array() *= (input.array() > 0.0F).cast<float>();
      } else {
        back.array() *= 1.0F - input.array().square();
      }
      delta = std::move(back);
    }
  }
  return total / static_cast<double>(n);
}

double DenseClassifier::loss_and_gradient(const Parameters& parameters, const Dataset& data,
                                          std::span<const std::size_t> rows, Parameters& gradient) const {
  if (!accelerator_) return run(parameters, data, rows, false, &gradient, nullptr);
  check_shape(parameters, data);
  gradient.resize(static_cast<Eigen::Index>(parameter_count_));
  const std::vector<Eigen::Index> index(rows.begin(), rows.end());
  const Matrix inputs = data.features(index, Eigen::all);
  std::vector<int> labels;
  labels.reserve(rows.size());
  for (const std::size_t row : rows) labels.push_back(static_cast<int>(data.labels[static_cast<Eigen::Index>(row)]));
  return accelerator_->loss_and_gradient(std::span<const float>(parameters.data(), parameter_count_),
                                         std::span<const float>(inputs.data(), static_cast<std::size_t>(inputs.size())),
                                         labels, rows.size(), std::span<float>(gradient.data(), parameter_count_));
}

std::vector<std::size_t> DenseClassifier::widths() const {
  std::vector<std::size_t> out{layers_.front().in};
  for (const Layer& layer : layers_) out.push_back(layer.out);
  return out;
}

double DenseClassifier::loss(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows) const {
  return run(parameters, data, rows, false, nullptr, nullptr);
}

Evaluation DenseClassifier::evaluate(const Parameters& parameters, const Dataset& data) const {
  std::size_t correct = 0;
  const double loss = run(parameters, data, {}, true, nullptr, &correct);
  if (data.size() == 0) return {};
  return {loss, static_cast<double>(correct) / static_cast<double>(data.size())};
}

double DenseClassifier::training_flops_per_sample() const {
  const double per_output = activation_ == Activation::Relu ? 1.0 : 4.0;
  const double derivative = activation_ == Activation::Relu ? 1.0 : 2.0;
  double flops = 5.0 * static_cast<double>(classes_);
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const auto in = static_cast<double>(layers_[l].in);
    const auto out = static_cast<double>(layers_[l].out);
    flops += 2.0 * in * out + out;                             // forward
    if (l + 1 < layers_.size()) flops += per_output * out;     // activation
    flops += 2.0 * in * out + out;                             // weight and bias gradients
    if (l > 0) flops += 2.0 * in * out + derivative * in;      // error to the layer below
  }
  return flops;
}

double DenseClassifier::training_bytes(std::size_t batch) const {
  double values = static_cast<double>(layers_.front().in);
  for (const Layer& layer : layers_) values += 3.0 * static_cast<double>(layer.out);
  return 4.0 * values * static_cast<double>(batch) + 12.0 * static_cast<double>(parameter_count());
}

}  // namespace dtsim::models
