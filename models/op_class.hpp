#pragma once
// The kinds of operation a layer's time is modelled by: each runs at its own sustained fraction of the
// device's peak, because a large matrix product keeps the tensor cores busy and a normalization does not.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace dtsim::models {

enum class OpClass {
  Gemm,         ///< dense matrix products (linear layers, the language-model head)
  Attention,    ///< the attention scores and their weighted sum of values
  Convolution,  ///< convolutions (with their batch normalization and activation)
  Elementwise,  ///< normalizations, residual additions, activations, pooling, embedding lookups
};

inline constexpr std::size_t kOpClasses = 4;

/// The YAML key of each class, in the enum's order.
inline constexpr std::array<std::string_view, kOpClasses> kOpClassKeys{"gemm", "attention", "convolution", "elementwise"};

inline std::string_view key_of(OpClass op) { return kOpClassKeys[static_cast<std::size_t>(op)]; }

/// A value per class; an absent one falls back to the device's single efficiency.
using PerOpClass = std::array<std::optional<double>, kOpClasses>;

}  // namespace dtsim::models
