#include "models/mixture_passes.hpp"

#include <algorithm>
#include <stdexcept>

namespace dtsim::models {
namespace {

using WeightMap = Eigen::Map<const RowMatrix>;
using GradientMap = Eigen::Map<RowMatrix>;

/// A dense layer's weights (out x in) at `offset` of `values`, its biases right after.
struct DenseLayer {
  std::size_t offset = 0;
  std::size_t in = 0;
  std::size_t out = 0;

  [[nodiscard]] WeightMap weights(std::span<const float> values) const {
    return {values.data() + offset, static_cast<Eigen::Index>(out), static_cast<Eigen::Index>(in)};
  }
  [[nodiscard]] auto biases(std::span<const float> values) const {
    return Eigen::Map<const Eigen::RowVectorXf>(values.data() + offset + in * out, static_cast<Eigen::Index>(out));
  }
  [[nodiscard]] std::size_t end() const { return offset + in * out + out; }

  RowMatrix forward(std::span<const float> values, const RowMatrix& input) const {
    RowMatrix z = input * weights(values).transpose();
    z.rowwise() += biases(values);
    return z;
  }
  /// Adds the layer's gradient for the outputs' gradient `delta` over `input`.
  void add_gradient(const RowMatrix& input, const RowMatrix& delta, std::span<float> gradient) const {
    GradientMap w(gradient.data() + offset, static_cast<Eigen::Index>(out), static_cast<Eigen::Index>(in));
    w.noalias() += delta.transpose() * input;
    Eigen::Map<Eigen::RowVectorXf>(gradient.data() + offset + in * out, static_cast<Eigen::Index>(out)) +=
        delta.colwise().sum();
  }
};

DenseLayer trunk(const MixtureShape& s) { return {0, s.features, s.width}; }
DenseLayer gate(const MixtureShape& s) { return {trunk(s).end(), s.width, s.experts}; }
DenseLayer expert_hidden(const MixtureShape& s) { return {0, s.width, s.expert_width}; }
DenseLayer expert_output(const MixtureShape& s) { return {expert_hidden(s).end(), s.expert_width, s.classes}; }

/// Row-wise softmax, each row shifted by its largest value.
RowMatrix softmax(const RowMatrix& z) {
  RowMatrix p = (z.colwise() - z.rowwise().maxCoeff()).array().exp();
  p.array().colwise() /= p.rowwise().sum().array();
  return p;
}

/// Each row's `k` most probable experts, most probable first, ties to the lower expert.
std::vector<std::size_t> top_k_of(const RowMatrix& probabilities, std::size_t k) {
  std::vector<std::size_t> out;
  out.reserve(static_cast<std::size_t>(probabilities.rows()) * k);
  std::vector<bool> taken(static_cast<std::size_t>(probabilities.cols()));
  for (Eigen::Index i = 0; i < probabilities.rows(); ++i) {
    std::fill(taken.begin(), taken.end(), false);
    for (std::size_t s = 0; s < k; ++s) {
      Eigen::Index best = -1;
      for (Eigen::Index e = 0; e < probabilities.cols(); ++e) {
        if (!taken[static_cast<std::size_t>(e)] && (best < 0 || probabilities(i, e) > probabilities(i, best))) best = e;
      }
      taken[static_cast<std::size_t>(best)] = true;
      out.push_back(static_cast<std::size_t>(best));
    }
  }
  return out;
}

}  // namespace

std::size_t MixtureShape::dense_parameters() const { return gate(*this).end(); }

std::size_t MixtureShape::expert_parameters() const { return expert_output(*this).end(); }

double MixtureShape::expert_flops(bool forward) const {
  const auto weights = static_cast<double>(width * expert_width + expert_width * classes);
  return (forward ? 2.0 : 4.0) * weights;
}

double MixtureShape::front_flops(bool forward) const {
  const auto trunk_weights = static_cast<double>(features * width);
  const auto gate_weights = static_cast<double>(width * experts);
  return forward ? 2.0 * (trunk_weights + gate_weights) : 2.0 * trunk_weights + 4.0 * gate_weights;
}

FrontPass front_forward(const MixtureShape& shape, std::span<const float> dense, RowMatrix input) {
  if (dense.size() != shape.dense_parameters() || static_cast<std::size_t>(input.cols()) != shape.features) {
    throw std::invalid_argument("a mixture's trunk and gate: parameter or feature count does not match the shape");
  }
  FrontPass out;
  out.hidden = activated(trunk(shape).forward(dense, input), shape.activation);
  out.input = std::move(input);
  out.routing.top_k = shape.top_k;
  out.routing.probabilities = softmax(gate(shape).forward(dense, out.hidden));
  out.routing.expert = top_k_of(out.routing.probabilities, shape.top_k);
  return out;
}

ExpertPass expert_forward(const MixtureShape& shape, std::span<const float> expert, RowMatrix tokens) {
  if (expert.size() != shape.expert_parameters()) throw std::invalid_argument("an expert's parameter count does not match the shape");
  ExpertPass out;
  out.hidden = activated(expert_hidden(shape).forward(expert, tokens), shape.activation);
  out.output = expert_output(shape).forward(expert, out.hidden);
  out.input = std::move(tokens);
  return out;
}

RowMatrix expert_backward(const MixtureShape& shape, std::span<const float> expert, const ExpertPass& pass,
                          const RowMatrix& output_gradient, std::span<float> gradient) {
  const DenseLayer hidden = expert_hidden(shape);
  const DenseLayer output = expert_output(shape);
  output.add_gradient(pass.hidden, output_gradient, gradient);
  RowMatrix delta = output_gradient * output.weights(expert);
  delta.array() *= activation_derivative(pass.hidden, shape.activation).array();
  hidden.add_gradient(pass.input, delta, gradient);
  return delta * hidden.weights(expert);
}

std::vector<std::size_t> slots_of(const Routing& routing, std::size_t e) {
  std::vector<std::size_t> out;
  for (std::size_t t = 0; t < routing.slots(); ++t) {
    if (routing.expert[t] == e) out.push_back(t);
  }
  return out;
}

RowMatrix combine(const Routing& routing, const RowMatrix& slot_outputs) {
  const auto tokens = routing.probabilities.rows();
  RowMatrix logits = RowMatrix::Zero(tokens, slot_outputs.cols());
  for (std::size_t t = 0; t < routing.slots(); ++t) {
    logits.row(static_cast<Eigen::Index>(t / routing.top_k)) += routing.weight(t) * slot_outputs.row(static_cast<Eigen::Index>(t));
  }
  return logits;
}

RowMatrix slot_output_gradients(const Routing& routing, const RowMatrix& logits_gradient) {
  RowMatrix out(static_cast<Eigen::Index>(routing.slots()), logits_gradient.cols());
  for (std::size_t t = 0; t < routing.slots(); ++t) {
    out.row(static_cast<Eigen::Index>(t)) = routing.weight(t) * logits_gradient.row(static_cast<Eigen::Index>(t / routing.top_k));
  }
  return out;
}

void front_backward(const MixtureShape& shape, std::span<const float> dense, const FrontPass& pass,
                    const RowMatrix& logits_gradient, const RowMatrix& slot_outputs,
                    const RowMatrix& slot_input_gradients, std::span<float> gradient) {
  const Routing& routing = pass.routing;
  const RowMatrix& p = routing.probabilities;
  // With a_e the loss's derivative in a chosen expert's probability (0 for the others) and c = sum_e a_e p_e,
  // the softmax passes p_j (a_j - c) to gate logit j.
  RowMatrix chosen = RowMatrix::Zero(p.rows(), p.cols());
  for (std::size_t t = 0; t < routing.slots(); ++t) {
    const auto token = static_cast<Eigen::Index>(t / routing.top_k);
    chosen(token, static_cast<Eigen::Index>(routing.expert[t])) =
        logits_gradient.row(token).dot(slot_outputs.row(static_cast<Eigen::Index>(t)));
  }
  const Eigen::VectorXf c = chosen.cwiseProduct(p).rowwise().sum();
  const RowMatrix gate_delta = p.cwiseProduct(RowMatrix(chosen.colwise() - c));
  gate(shape).add_gradient(pass.hidden, gate_delta, gradient);
  RowMatrix hidden_gradient = gate_delta * gate(shape).weights(dense);
  for (std::size_t t = 0; t < routing.slots(); ++t) {
    hidden_gradient.row(static_cast<Eigen::Index>(t / routing.top_k)) += slot_input_gradients.row(static_cast<Eigen::Index>(t));
  }
  hidden_gradient.array() *= activation_derivative(pass.hidden, shape.activation).array();
  trunk(shape).add_gradient(pass.input, hidden_gradient, gradient);
}

}  // namespace dtsim::models
