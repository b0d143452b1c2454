#pragma once
// The passes of a small mixture-of-experts classifier, in pieces that one device runs together and that the
// devices of an expert group run apart, exchanging the tokens between them (runtime::MixtureWorker):
//
//   input -> trunk (dense, activation) -> hidden --gate (softmax over experts, top-k)--> routing
//                                             \--> expert e (dense, activation, dense) for each chosen e
//   logits = sum over a token's k chosen experts of p_e x expert_e(hidden)   (Shazeer et al. 2017; Fedus et
//   al. 2022's Switch Transformer for k = 1: the gate's probability weights the expert's output, so the gate
//   learns through it even with one expert chosen).
//
// A token's k choices are its slots, slot t = token x k + s, in order of falling probability (ties to the
// lower expert). Parameters: the trunk's weights (width x features) and biases, the gate's (experts x width)
// and biases, then each expert's block: its hidden layer's weights (expert_width x width) and biases, its
// output layer's (classes x expert_width) and biases.

#include "models/dense_classifier.hpp"
#include "models/split_mlp.hpp"

#include <span>
#include <vector>

namespace dtsim::models {

struct MixtureShape {
  std::size_t features = 0;
  std::size_t width = 0;         ///< the trunk's outputs: what the gate and the experts read
  std::size_t experts = 0;
  std::size_t expert_width = 0;  ///< each expert's hidden layer
  std::size_t classes = 0;
  std::size_t top_k = 1;
  Activation activation = Activation::Tanh;

  /// The trunk's and the gate's parameters, which every device holds.
  [[nodiscard]] std::size_t dense_parameters() const;
  /// One expert's parameters.
  [[nodiscard]] std::size_t expert_parameters() const;
  /// Where expert `e`'s block starts in the whole model's parameters.
  [[nodiscard]] std::size_t expert_offset(std::size_t e) const { return dense_parameters() + e * expert_parameters(); }
  [[nodiscard]] std::size_t parameters() const { return expert_offset(experts); }
  /// Multiply-adds x 2 of one token's pass through one expert, forward (2 per weight) or backward (4 per
  /// weight: the weights' gradient and the input's).
  [[nodiscard]] double expert_flops(bool forward) const;
  /// The same for one sample through the trunk and the gate (backward: no gradient for the input).
  [[nodiscard]] double front_flops(bool forward) const;
};

/// What the gate decided for a batch of tokens.
struct Routing {
  std::size_t top_k = 1;
  RowMatrix probabilities;          ///< tokens x experts: the gate's softmax
  std::vector<std::size_t> expert;  ///< per slot, its expert

  [[nodiscard]] std::size_t slots() const { return expert.size(); }
  /// Slot t's gate probability.
  [[nodiscard]] float weight(std::size_t t) const {
    return probabilities(static_cast<Eigen::Index>(t / top_k), static_cast<Eigen::Index>(expert[t]));
  }
};

/// The slots routed to expert `e`, in slot order.
std::vector<std::size_t> slots_of(const Routing& routing, std::size_t e);

/// The trunk and the gate over a batch, kept for the backward pass.
struct FrontPass {
  RowMatrix input;
  RowMatrix hidden;  ///< tokens x width
  Routing routing;
};

/// One expert over the tokens routed to it, kept for the backward pass.
struct ExpertPass {
  RowMatrix input;   ///< tokens x width
  RowMatrix hidden;  ///< tokens x expert_width
  RowMatrix output;  ///< tokens x classes
};

/// `dense`: the trunk's and the gate's parameters (MixtureShape::dense_parameters()).
FrontPass front_forward(const MixtureShape& shape, std::span<const float> dense, RowMatrix input);
/// `expert`: one expert's block (MixtureShape::expert_parameters()).
ExpertPass expert_forward(const MixtureShape& shape, std::span<const float> expert, RowMatrix tokens);
/// Adds the expert's gradient for `output_gradient` (tokens x classes) to `gradient` (its block) and returns
/// the gradient of its input tokens.
RowMatrix expert_backward(const MixtureShape& shape, std::span<const float> expert, const ExpertPass& pass,
                          const RowMatrix& output_gradient, std::span<float> gradient);
/// The logits: each token's slots' outputs (slots x classes) weighted by their gate probabilities and summed.
RowMatrix combine(const Routing& routing, const RowMatrix& slot_outputs);
/// The gradient of each slot's output from the logits' gradient (tokens x classes): its probability times
/// its token's.
RowMatrix slot_output_gradients(const Routing& routing, const RowMatrix& logits_gradient);
/// Adds the trunk's and the gate's gradient to `gradient` (dense_parameters() long), from the logits'
/// gradient, the slots' outputs (through the gate's probabilities) and the gradients of the slots' inputs
/// (slots x width) that the experts returned.
void front_backward(const MixtureShape& shape, std::span<const float> dense, const FrontPass& pass,
                    const RowMatrix& logits_gradient, const RowMatrix& slot_outputs,
                    const RowMatrix& slot_input_gradients, std::span<float> gradient);

}  // namespace dtsim::models
