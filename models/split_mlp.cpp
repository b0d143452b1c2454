#include "models/split_mlp.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace dtsim::models {
namespace {

using WeightMap = Eigen::Map<const RowMatrix>;
using GradientMap = Eigen::Map<RowMatrix>;

}  // namespace

std::vector<std::size_t> split_layers(std::size_t layers, int stages) {
  if (stages < 1 || static_cast<std::size_t>(stages) > layers) {
    throw std::invalid_argument(fmt::format("{} stages of a model of {} layers would leave a stage without one",
                                            stages, layers));
  }
  std::vector<std::size_t> first;
  for (int s = 0; s <= stages; ++s) first.push_back(layers * static_cast<std::size_t>(s) / static_cast<std::size_t>(stages));
  return first;
}

StageShare::StageShare(const DenseClassifier& model, std::size_t first, std::size_t last, int tensor, int rank)
    : activation_(model.tanh() ? Activation::Tanh : Activation::Relu) {
  const std::vector<std::size_t> widths = model.widths();
  const std::size_t layers = widths.size() - 1;
  std::size_t whole_offset = 0;
  std::vector<std::size_t> offsets;
  for (std::size_t l = 0; l < layers; ++l) {
    offsets.push_back(whole_offset);
    whole_offset += widths[l] * widths[l + 1] + widths[l + 1];
  }
  const auto t = static_cast<std::size_t>(tensor);
  const auto r = static_cast<std::size_t>(rank);
  for (std::size_t l = first; l < last;) {
    const bool paired = tensor > 1 && l + 1 < last;
    const std::size_t width = widths[l + 1];
    if (paired && width % t != 0) {
      throw std::invalid_argument(fmt::format("layer {}'s {} outputs cannot be split over a tensor group of {}", l + 1,
                                              width, tensor));
    }
    const auto add = [&](std::size_t layer, Split split) {
      Piece piece;
      piece.layer = layer;
      piece.split = split;
      piece.whole_in = widths[layer];
      piece.whole_out = widths[layer + 1];
      piece.in = split == Split::Rows ? piece.whole_in / t : piece.whole_in;
      piece.out = split == Split::Columns ? piece.whole_out / t : piece.whole_out;
      piece.from = split == Split::Columns ? r * piece.out : split == Split::Rows ? r * piece.in : 0;
      piece.offset = count_;
      piece.whole_offset = offsets[layer];
      piece.hidden = layer + 1 < layers;
      count_ += piece.in * piece.out + piece.out;
      pieces_.push_back(piece);
    };
    if (paired) {
      add(l, Split::Columns);
      add(l + 1, Split::Rows);
      l += 2;
    } else {
      add(l, Split::Whole);
      l += 1;
    }
  }
}

Parameters StageShare::take(const Parameters& whole) const {
  Parameters out(static_cast<Eigen::Index>(count_));
  for (const Piece& p : pieces_) {
    const WeightMap w(whole.data() + p.whole_offset, static_cast<Eigen::Index>(p.whole_out), static_cast<Eigen::Index>(p.whole_in));
    GradientMap mine(out.data() + p.offset, static_cast<Eigen::Index>(p.out), static_cast<Eigen::Index>(p.in));
    const auto from = static_cast<Eigen::Index>(p.from);
    const auto bias = static_cast<Eigen::Index>(p.whole_offset + p.whole_in * p.whole_out);
    const auto my_bias = static_cast<Eigen::Index>(p.offset + p.in * p.out);
    const auto out_n = static_cast<Eigen::Index>(p.out);
    const auto in_n = static_cast<Eigen::Index>(p.in);
    if (p.split == Split::Columns) {
      mine = w.middleRows(from, out_n);
      out.segment(my_bias, out_n) = whole.segment(bias + from, out_n);
    } else {
      mine = p.split == Split::Rows ? RowMatrix(w.middleCols(from, in_n)) : RowMatrix(w);
      out.segment(my_bias, out_n) = whole.segment(bias, out_n);
    }
  }
  return out;
}

void StageShare::put(const Parameters& local, Parameters& whole) const {
  for (const Piece& p : pieces_) {
    GradientMap w(whole.data() + p.whole_offset, static_cast<Eigen::Index>(p.whole_out), static_cast<Eigen::Index>(p.whole_in));
    const WeightMap mine(local.data() + p.offset, static_cast<Eigen::Index>(p.out), static_cast<Eigen::Index>(p.in));
    const auto from = static_cast<Eigen::Index>(p.from);
    const auto bias = static_cast<Eigen::Index>(p.whole_offset + p.whole_in * p.whole_out);
    const auto my_bias = static_cast<Eigen::Index>(p.offset + p.in * p.out);
    const auto out_n = static_cast<Eigen::Index>(p.out);
    const auto in_n = static_cast<Eigen::Index>(p.in);
    if (p.split == Split::Columns) {
      w.middleRows(from, out_n) = mine;
      whole.segment(bias + from, out_n) = local.segment(my_bias, out_n);
    } else {
      if (p.split == Split::Rows) {
        w.middleCols(from, in_n) = mine;
      } else {
        w = mine;
      }
      whole.segment(bias, out_n) = local.segment(my_bias, out_n);
    }
  }
}

RowMatrix StageShare::forward(const Parameters& local, RowMatrix input, const GroupSum& sum) {
  std::vector<RowMatrix> kept;
  RowMatrix x = std::move(input);
  for (const Piece& p : pieces_) {
    const WeightMap w(local.data() + p.offset, static_cast<Eigen::Index>(p.out), static_cast<Eigen::Index>(p.in));
    const auto bias = local.segment(static_cast<Eigen::Index>(p.offset + p.in * p.out), static_cast<Eigen::Index>(p.out));
    RowMatrix z = x * w.transpose();
    if (p.split == Split::Rows) sum(z);  // the partial products of each device's inputs
    z.rowwise() += bias.transpose();
    kept.push_back(std::move(x));
    x = p.hidden ? activated(z, activation_) : std::move(z);
  }
  kept.push_back(x);
  kept_.push_back(std::move(kept));
  return x;
}

RowMatrix StageShare::backward(const Parameters& local, RowMatrix output_gradient, const GroupSum& sum,
                               Parameters& gradient) {
  if (kept_.empty()) throw std::logic_error("a backward pass without its forward pass");
  const std::vector<RowMatrix> kept = std::move(kept_.front());
  kept_.pop_front();
  RowMatrix delta = std::move(output_gradient);
  if (pieces_.back().hidden) delta.array() *= activation_derivative(kept.back(), activation_).array();
  for (std::size_t i = pieces_.size(); i-- > 0;) {
    const Piece& p = pieces_[i];
    const RowMatrix& x = kept[i];
    const WeightMap w(local.data() + p.offset, static_cast<Eigen::Index>(p.out), static_cast<Eigen::Index>(p.in));
    GradientMap gw(gradient.data() + p.offset, static_cast<Eigen::Index>(p.out), static_cast<Eigen::Index>(p.in));
    gw.noalias() += delta.transpose() * x;
    gradient.segment(static_cast<Eigen::Index>(p.offset + p.in * p.out), static_cast<Eigen::Index>(p.out)) +=
        delta.colwise().sum().transpose();
    if (p.layer == 0) return {};
    RowMatrix back = delta * w;
    // A column-split layer's input gradient is the sum of each device's share of the outputs' paths.
    if (p.split == Split::Columns) sum(back);
    if (i == 0) return back;
    back.array() *= activation_derivative(x, activation_).array();
    delta = std::move(back);
  }
  return {};
}

RowMatrix activated(const RowMatrix& z, Activation activation) {
  return activation == Activation::Tanh ? RowMatrix(z.array().tanh()) : RowMatrix(z.cwiseMax(0.0F));
}

RowMatrix activation_derivative(const RowMatrix& h, Activation activation) {
  return activation == Activation::Tanh ? RowMatrix(1.0F - h.array().square()) : RowMatrix((h.array() > 0.0F).cast<float>());
}

double softmax_cross_entropy(const RowMatrix& logits, std::span<const int> labels, double divisor, RowMatrix& delta) {
  double total = 0.0;
  delta.resize(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const auto label = static_cast<Eigen::Index>(labels[static_cast<std::size_t>(i)]);
    const double top = logits.row(i).maxCoeff();
    double sum = 0.0;
    for (Eigen::Index k = 0; k < logits.cols(); ++k) sum += std::exp(static_cast<double>(logits(i, k)) - top);
    total += std::log(sum) + top - logits(i, label);
    for (Eigen::Index k = 0; k < logits.cols(); ++k) {
      const double probability = std::exp(static_cast<double>(logits(i, k)) - top) / sum;
      delta(i, k) = static_cast<float>((probability - (k == label ? 1.0 : 0.0)) / divisor);
    }
  }
  return total;
}

}  // namespace dtsim::models
