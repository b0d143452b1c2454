#include "models/moe_classifier.hpp"

#include "sim/core/rng.hpp"

#include <cmath>
#include <stdexcept>

namespace dtsim::models {
namespace {

std::span<const float> block(const Parameters& p, std::size_t offset, std::size_t size) {
  return {p.data() + offset, size};
}

std::span<float> block(Parameters& p, std::size_t offset, std::size_t size) { return {p.data() + offset, size}; }

/// Glorot-uniform weights of an out x in layer at `offset`, its biases left at 0.
void glorot(Parameters& p, std::size_t offset, std::size_t in, std::size_t out, core::RandomEngine& engine) {
  const double limit = std::sqrt(6.0 / static_cast<double>(in + out));
  for (std::size_t i = 0; i < in * out; ++i) {
    p[static_cast<Eigen::Index>(offset + i)] = static_cast<float>(limit * (2.0 * core::uniform01(engine) - 1.0));
  }
}

}  // namespace

MoeClassifier::MoeClassifier(MixtureShape shape, std::uint64_t seed) : shape_(shape), seed_(seed) {
  if (shape_.features == 0 || shape_.width == 0 || shape_.expert_width == 0) {
    throw std::invalid_argument("a mixture of experts needs features, a trunk width and an expert width");
  }
  if (shape_.classes < 2 || shape_.experts < 2) throw std::invalid_argument("a mixture of experts needs two classes and two experts");
  if (shape_.top_k < 1 || shape_.top_k > shape_.experts) throw std::invalid_argument("top_k must be in [1, experts]");
}

std::size_t MoeClassifier::active_parameter_count() const {
  return shape_.dense_parameters() + shape_.top_k * shape_.expert_parameters();
}

Parameters MoeClassifier::initial_parameters() const {
  Parameters out = Parameters::Zero(static_cast<Eigen::Index>(parameter_count()));
  core::RandomEngine engine = core::random_stream(seed_, "model/moe_classifier");
  const MixtureShape& s = shape_;
  glorot(out, 0, s.features, s.width, engine);
  glorot(out, s.features * s.width + s.width, s.width, s.experts, engine);
  for (std::size_t e = 0; e < s.experts; ++e) {
    glorot(out, s.expert_offset(e), s.width, s.expert_width, engine);
    glorot(out, s.expert_offset(e) + s.width * s.expert_width + s.expert_width, s.expert_width, s.classes, engine);
  }
  return out;
}

double MoeClassifier::run(const Parameters& parameters, const FeatureMatrix& inputs, std::span<const int> labels,
                          Parameters* gradient, std::size_t* correct) const {
  if (static_cast<std::size_t>(parameters.size()) != parameter_count()) {
    throw std::invalid_argument("mixture of experts: the parameter count does not match the model");
  }
  const MixtureShape& s = shape_;
  const std::size_t n = labels.size();
  if (gradient != nullptr) *gradient = Parameters::Zero(static_cast<Eigen::Index>(parameter_count()));
  if (n == 0) return 0.0;
  const FrontPass front = front_forward(s, block(parameters, 0, s.dense_parameters()), inputs);
  const auto slots = static_cast<Eigen::Index>(front.routing.slots());
  RowMatrix slot_outputs(slots, static_cast<Eigen::Index>(s.classes));
  std::vector<ExpertPass> passes;
  std::vector<std::vector<std::size_t>> routed;
  for (std::size_t e = 0; e < s.experts; ++e) {
    routed.push_back(slots_of(front.routing, e));
    std::vector<Eigen::Index> tokens;
    for (const std::size_t t : routed.back()) tokens.push_back(static_cast<Eigen::Index>(t / s.top_k));
    const std::vector<Eigen::Index> at(routed.back().begin(), routed.back().end());
    passes.push_back(expert_forward(s, block(parameters, s.expert_offset(e), s.expert_parameters()),
                                    front.hidden(tokens, Eigen::all)));
    slot_outputs(at, Eigen::all) = passes.back().output;
  }
  const RowMatrix logits = combine(front.routing, slot_outputs);
  if (correct != nullptr) {
    for (Eigen::Index i = 0; i < logits.rows(); ++i) {
      Eigen::Index best = 0;
      logits.row(i).maxCoeff(&best);
      if (best == labels[static_cast<std::size_t>(i)]) ++*correct;
    }
  }
  RowMatrix delta;
  const double total = softmax_cross_entropy(logits, labels, static_cast<double>(n), delta);
  if (gradient == nullptr) return total / static_cast<double>(n);
  const RowMatrix slot_gradients = slot_output_gradients(front.routing, delta);
  RowMatrix slot_input_gradients(slots, static_cast<Eigen::Index>(s.width));
  for (std::size_t e = 0; e < s.experts; ++e) {
    const std::vector<Eigen::Index> at(routed[e].begin(), routed[e].end());
    slot_input_gradients(at, Eigen::all) =
        expert_backward(s, block(parameters, s.expert_offset(e), s.expert_parameters()), passes[e],
                        slot_gradients(at, Eigen::all), block(*gradient, s.expert_offset(e), s.expert_parameters()));
  }
  front_backward(s, block(parameters, 0, s.dense_parameters()), front, delta, slot_outputs, slot_input_gradients,
                 block(*gradient, 0, s.dense_parameters()));
  return total / static_cast<double>(n);
}

namespace {

std::vector<int> labels_of(const Dataset& data, std::span<const std::size_t> rows) {
  std::vector<int> out;
  out.reserve(rows.size());
  for (const std::size_t row : rows) out.push_back(static_cast<int>(data.labels[static_cast<Eigen::Index>(row)]));
  return out;
}

std::vector<std::size_t> every_row(const Dataset& data) {
  std::vector<std::size_t> out(data.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

}  // namespace

double MoeClassifier::loss_and_gradient(const Parameters& parameters, const Dataset& data,
                                        std::span<const std::size_t> rows, Parameters& gradient) const {
  const std::vector<Eigen::Index> index(rows.begin(), rows.end());
  return run(parameters, data.features(index, Eigen::all), labels_of(data, rows), &gradient, nullptr);
}

double MoeClassifier::loss(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows) const {
  const std::vector<Eigen::Index> index(rows.begin(), rows.end());
  return run(parameters, data.features(index, Eigen::all), labels_of(data, rows), nullptr, nullptr);
}

Evaluation MoeClassifier::evaluate(const Parameters& parameters, const Dataset& data) const {
  if (data.size() == 0) return {};
  std::size_t correct = 0;
  const double mean = run(parameters, data.features, labels_of(data, every_row(data)), nullptr, &correct);
  return {mean, static_cast<double>(correct) / static_cast<double>(data.size())};
}

double MoeClassifier::training_flops_per_sample() const {
  const MixtureShape& s = shape_;
  return s.front_flops(true) + s.front_flops(false) +
         static_cast<double>(s.top_k) * (s.expert_flops(true) + s.expert_flops(false)) + 5.0 * static_cast<double>(s.classes);
}

double MoeClassifier::training_bytes(std::size_t batch) const {
  const MixtureShape& s = shape_;
  const auto k = static_cast<double>(s.top_k);
  const double values = static_cast<double>(s.features) + 3.0 * static_cast<double>(s.width + s.experts) +
                        3.0 * k * static_cast<double>(s.expert_width + s.classes) + 3.0 * static_cast<double>(s.classes);
  return 4.0 * values * static_cast<double>(batch) + 12.0 * static_cast<double>(parameter_count());
}

}  // namespace dtsim::models
