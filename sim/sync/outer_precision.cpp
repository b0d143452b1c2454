#include "sim/sync/outer_precision.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace dtsim::sync {
namespace {

float round_bf16(float value) {
  if (!std::isfinite(value)) return value;
  auto bits = std::bit_cast<std::uint32_t>(value);
  // Round to nearest, ties to even, on the 16 bits kept.
  bits += 0x7FFFU + ((bits >> 16U) & 1U);
  return std::bit_cast<float>(bits & 0xFFFF0000U);
}

/// E4M3 on a value already scaled into its range: 3 mantissa bits, normals from 2^-6, subnormals in steps of 2^-9.
float round_e4m3(float value) {
  const float magnitude = std::fabs(value);
  const int exponent = magnitude < 0x1p-6F ? -6 : std::ilogb(magnitude);
  const float step = std::ldexp(1.0F, exponent - 3);
  const float rounded = std::min(std::nearbyint(magnitude / step) * step, 448.0F);
  return std::copysign(rounded, value);
}

/// E3M0 on a value already scaled into its range: 0, or a power of two from 2^-2 to 2^4, to nearest.
float round_e3m0(float value) {
  const float magnitude = std::fabs(value);
  if (magnitude < 0x1p-3F) return std::copysign(0.0F, value);
  int exponent = std::ilogb(magnitude);
  if (magnitude >= 1.5F * std::ldexp(1.0F, exponent)) ++exponent;
  return std::copysign(std::ldexp(1.0F, std::clamp(exponent, -2, 4)), value);
}

/// Rounds `values` with `round` after scaling them by a power of two that brings their largest magnitude to at
/// most `largest`.
template <class Round>
void round_scaled(std::span<float> values, float largest, Round round) {
  float peak = 0.0F;
  for (const float v : values) peak = std::max(peak, std::fabs(v));
  if (peak == 0.0F || !std::isfinite(peak)) return;
  const int shift = static_cast<int>(std::ceil(std::log2(peak / largest)));
  for (float& v : values) v = std::ldexp(round(std::ldexp(v, -shift)), shift);
}

/// INTELLECT-1's 8-bit buckets (see round_to_precision). One value is its own bucket's mean already.
void round_int8(std::span<float> values) {
  if (values.size() < 2) return;
  double squares = 0.0;
  for (const float v : values) squares += static_cast<double>(v) * v;
  const double sigma = std::sqrt(squares / static_cast<double>(values.size() - 1));
  if (sigma == 0.0 || !std::isfinite(sigma)) return;
  constexpr int buckets = 256;
  const double width = 6.0 * sigma / buckets;
  std::array<double, buckets> sums{};
  std::array<std::size_t, buckets> counts{};
  std::vector<std::uint8_t> bucket(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const long index = std::lround(values[i] / width) + buckets / 2;
    bucket[i] = static_cast<std::uint8_t>(std::clamp(index, 0L, static_cast<long>(buckets - 1)));
    sums[bucket[i]] += values[i];
    ++counts[bucket[i]];
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(sums[bucket[i]] / static_cast<double>(counts[bucket[i]]));
  }
}

}  // namespace

int precision_bits(OuterPrecision precision) {
  switch (precision) {
    case OuterPrecision::bf16:
      return 16;
    case OuterPrecision::fp8:
    case OuterPrecision::int8:
      return 8;
    case OuterPrecision::fp4:
      return 4;
    case OuterPrecision::automatic:
    case OuterPrecision::fp32:
      break;
  }
  return 32;
}

std::string_view precision_name(OuterPrecision precision) {
  switch (precision) {
    case OuterPrecision::automatic:
      return "auto";
    case OuterPrecision::fp32:
      return "fp32";
    case OuterPrecision::bf16:
      return "bf16";
    case OuterPrecision::fp8:
      return "fp8";
    case OuterPrecision::int8:
      return "int8";
    case OuterPrecision::fp4:
      return "fp4";
  }
  return "auto";
}

void round_to_precision(std::span<float> values, OuterPrecision precision) {
  switch (precision) {
    case OuterPrecision::automatic:
    case OuterPrecision::fp32:
      return;
    case OuterPrecision::bf16:
      for (float& v : values) v = round_bf16(v);
      return;
    case OuterPrecision::fp8:
      round_scaled(values, 448.0F, round_e4m3);
      return;
    case OuterPrecision::int8:
      round_int8(values);
      return;
    case OuterPrecision::fp4:
      round_scaled(values, 16.0F, round_e3m0);
      return;
  }
}

}  // namespace dtsim::sync
