#pragma once
// A small mixture-of-experts classifier trained for real (models/mixture_passes.hpp): a dense trunk, a gate
// choosing each sample's top-k of several MLP experts, their outputs weighted by the gate's probabilities,
// softmax cross-entropy. One device runs every expert; under expert parallelism the devices of an expert
// group each run a share of them (runtime::MixtureWorker).

#include "models/mixture_passes.hpp"
#include "models/trainable_model.hpp"

#include <cstdint>

namespace dtsim::models {

class MoeClassifier final : public TrainableModel {
 public:
  /// Weights start uniform in +-sqrt(6 / (in + out)) (Glorot) from the stream "model/moe_classifier" of
  /// `seed`, biases at 0. Throws std::invalid_argument for a width of 0, fewer than two experts or classes,
  /// or top_k outside [1, experts].
  MoeClassifier(MixtureShape shape, std::uint64_t seed);

  [[nodiscard]] std::size_t parameter_count() const override { return shape_.parameters(); }
  /// The trunk, the gate and top_k experts: what one sample's pass uses.
  [[nodiscard]] std::size_t active_parameter_count() const override;
  [[nodiscard]] Parameters initial_parameters() const override;
  double loss_and_gradient(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                           Parameters& gradient) const override;
  [[nodiscard]] double loss(const Parameters& parameters, const Dataset& data,
                            std::span<const std::size_t> rows) const override;
  [[nodiscard]] Evaluation evaluate(const Parameters& parameters, const Dataset& data) const override;
  /// The trunk and the gate forward and backward (MixtureShape::front_flops), top_k experts' passes
  /// (MixtureShape::expert_flops), and 5 per class for the softmax and cross-entropy.
  [[nodiscard]] double training_flops_per_sample() const override;
  [[nodiscard]] bool computes_concurrently() const override { return true; }
  /// Per sample, the input and every layer's outputs of the active path (4 bytes each) written once and read
  /// twice; per batch, the weights read twice and their gradient written.
  [[nodiscard]] double training_bytes(std::size_t batch) const override;

  [[nodiscard]] const MixtureShape& shape() const { return shape_; }

 private:
  /// Mean loss over `inputs`, the mean gradient into `gradient` when given, and the count of samples whose
  /// most probable class is their label into `correct` when given.
  double run(const Parameters& parameters, const FeatureMatrix& inputs, std::span<const int> labels,
             Parameters* gradient, std::size_t* correct) const;

  MixtureShape shape_;
  std::uint64_t seed_;
};

}  // namespace dtsim::models
