#pragma once
// Softmax regression and the multi-layer perceptron: dense layers, then softmax cross-entropy.

#include "models/dense_accelerator.hpp"
#include "models/trainable_model.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace dtsim::models {

enum class Activation { Relu, Tanh };

/// Layers features -> hidden[0] -> ... -> classes, fully connected, `activation` after every hidden layer,
/// softmax over the last. With no hidden layer it is softmax (multinomial logistic) regression.
/// Parameters: per layer, its weights (out x in, row-major) then its biases (out). Loss: the mean
/// cross-entropy of the softmax against the class labels.
class DenseClassifier final : public TrainableModel {
 public:
  /// Weights start uniform in +-sqrt(6 / (in + out)) (Glorot) from the stream "model/dense_classifier" of
  /// `seed`, biases at 0; without hidden layers every parameter starts at 0.
  DenseClassifier(std::size_t features, std::vector<std::size_t> hidden, Activation activation, std::size_t classes,
                  std::uint64_t seed);

  [[nodiscard]] std::size_t parameter_count() const override { return parameter_count_; }
  [[nodiscard]] Parameters initial_parameters() const override;
  double loss_and_gradient(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows,
                           Parameters& gradient) const override;
  [[nodiscard]] double loss(const Parameters& parameters, const Dataset& data,
                            std::span<const std::size_t> rows) const override;
  /// Mean cross-entropy and the share of samples whose most probable class is their label.
  [[nodiscard]] Evaluation evaluate(const Parameters& parameters, const Dataset& data) const override;
  /// Per layer of `in` inputs and `out` outputs: forward 2 in out + out (weights, bias) plus the activation
  /// (1 per output for relu, 4 for tanh); backward 2 in out + out (weight and bias gradients), plus 2 in out
  /// + the activation's derivative (1 or 2 per input) to pass the error back, except to the input. Softmax
  /// and cross-entropy: 5 per class.
  [[nodiscard]] double training_flops_per_sample() const override;
  /// On the CPU; an accelerator's calls stay on the simulation's thread.
  [[nodiscard]] bool computes_concurrently() const override { return accelerator_ == nullptr; }
  /// Per sample, the input read and each layer's output written once and read twice (4 bytes each); per
  /// batch, the weights read twice and their gradient written (4 bytes each).
  [[nodiscard]] double training_bytes(std::size_t batch) const override;

  /// Computes loss_and_gradient() with `accelerator` (a GPU) from now on; evaluations stay on the CPU.
  void set_accelerator(std::unique_ptr<DenseAccelerator> accelerator) { accelerator_ = std::move(accelerator); }
  /// The layer widths: features, hidden..., classes.
  [[nodiscard]] std::vector<std::size_t> widths() const;
  [[nodiscard]] bool tanh() const { return activation_ == Activation::Tanh; }

 private:
  struct Layer {
    std::size_t in = 0;
    std::size_t out = 0;
    std::size_t offset = 0;  ///< of its weights in the parameters; the biases follow
  };
  /// Loss over `rows` (all of `data` when empty and `all`), and the gradient when asked; counts correct
  /// predictions into `correct` when given.
  double run(const Parameters& parameters, const Dataset& data, std::span<const std::size_t> rows, bool all,
             Parameters* gradient, std::size_t* correct) const;
  void check_shape(const Parameters& parameters, const Dataset& data) const;

  std::vector<Layer> layers_;
  Activation activation_;
  std::size_t classes_;
  std::size_t parameter_count_ = 0;
  std::uint64_t seed_;
  // Shared by the actors of one run, which take turns (SimGrid runs one at a time).
  std::unique_ptr<DenseAccelerator> accelerator_;
};

}  // namespace dtsim::models
