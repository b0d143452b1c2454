#pragma once
// A dense classifier (softmax regression or MLP) split over devices for real: its layers in contiguous
// pipeline stages, and within a stage over a tensor group as Megatron-LM splits an MLP (Shoeybi et al.
// 2019): a layer by output rows (column-parallel: each device computes its outputs and their activation),
// the next by input columns (row-parallel: each device multiplies its share of the inputs, the group sums
// the partial outputs, then adds the bias). A stage's last layer without a partner is computed whole by every
// device of the group. One device's share of a stage, with real values.

#include "models/dataset.hpp"
#include "models/dense_classifier.hpp"

#include <Eigen/Core>

#include <deque>
#include <functional>
#include <span>
#include <vector>

namespace dtsim::models {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The first layer of each of `stages` stages of `layers` layers, as even as possible, then `layers`.
/// Throws std::invalid_argument when a stage would have none.
std::vector<std::size_t> split_layers(std::size_t layers, int stages);

class StageShare {
 public:
  /// Sums a matrix over the device's tensor group, in place.
  using GroupSum = std::function<void(RowMatrix&)>;

  /// Layers [first, last) of `model`, device `rank` of a tensor group of `tensor`. Throws
  /// std::invalid_argument when a split layer's width is not a multiple of the group.
  StageShare(const DenseClassifier& model, std::size_t first, std::size_t last, int tensor, int rank);

  /// The device's values (its rows, columns and biases of each layer, in layer order).
  [[nodiscard]] std::size_t parameter_count() const { return count_; }
  /// The device's values taken from the whole model's parameters.
  [[nodiscard]] Parameters take(const Parameters& whole) const;
  /// The device's values written into the whole model's parameters.
  void put(const Parameters& local, Parameters& whole) const;

  /// The stage's output for `input` (logits after the model's last layer), keeping what backward needs.
  RowMatrix forward(const Parameters& local, RowMatrix input, const GroupSum& sum);
  /// From the gradient of the stage's output (of the logits after the model's last layer), for the oldest
  /// micro-batch whose forward pass it kept: adds the device's gradient to `gradient` and returns the
  /// gradient of the stage's input (empty for the model's first stage).
  RowMatrix backward(const Parameters& local, RowMatrix output_gradient, const GroupSum& sum, Parameters& gradient);

 private:
  enum class Split { Whole, Columns, Rows };
  struct Piece {
    std::size_t layer = 0;
    Split split = Split::Whole;
    std::size_t in = 0, out = 0;            ///< the device's share: inputs and outputs it multiplies
    std::size_t whole_in = 0, whole_out = 0;
    std::size_t from = 0;                    ///< its first output row (columns) or input column (rows)
    std::size_t offset = 0;                  ///< of its weights in the device's values; its biases follow
    std::size_t whole_offset = 0;            ///< of the layer in the whole model's parameters
    bool hidden = true;                      ///< an activation follows it
  };
  std::vector<Piece> pieces_;
  std::size_t count_ = 0;
  Activation activation_ = Activation::Relu;
  /// Per micro-batch in flight, oldest first: each piece's input, then the stage's output.
  std::deque<std::vector<RowMatrix>> kept_;
};

/// A hidden layer's activation of its pre-activations `z`.
RowMatrix activated(const RowMatrix& z, Activation activation);
/// The activation's derivative, from its output `h` (tanh: 1 - h^2; relu: 1 where h > 0).
RowMatrix activation_derivative(const RowMatrix& h, Activation activation);

/// Mean softmax cross-entropy over `labels` and the gradient of the logits, divided by `divisor` (the global
/// batch, so that summed micro-batch and replica gradients are the global mean).
double softmax_cross_entropy(const RowMatrix& logits, std::span<const int> labels, double divisor, RowMatrix& delta);

}  // namespace dtsim::models
