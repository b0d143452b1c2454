#pragma once
// An outer gradient rounded to the narrow float it travels in. Streaming DiLoCo (arXiv:2501.18512, section 2.4)
// sends each replica's outer gradient as 4-bit floats of 1 sign, 3 exponent and no mantissa bit (E3M0) and
// accumulates what arrives in 32-bit floats. The paper gives no scaling; dtsim scales each message by a power of
// two so that its largest magnitude is within the format's range (without it, E3M0's smallest magnitude, 1/4,
// is far above an outer gradient's), and does not count the scale's bytes. INTELLECT-1 (Prime Intellect 2024)
// sends 8-bit bucket indices instead, with a table of each bucket's mean (round_to_precision says how).

#include "sim/sync/sync_strategy.hpp"

#include <span>
#include <string_view>

namespace dtsim::sync {

/// Bits a value takes on the wire in `precision` (not `automatic`).
int precision_bits(OuterPrecision precision);
std::string_view precision_name(OuterPrecision precision);

/// Rounds `values` in place to `precision`, as a sender does: BF16 to nearest even; FP8 (E4M3: 3 mantissa bits,
/// largest 448, subnormals down to 2^-9) and FP4 (E3M0: 0 and the powers of two 2^-2 to 2^4) to nearest, after
/// the message's power-of-two scale; INT8 as INTELLECT-1's all-reduce does (PrimeIntellect-ai/prime,
/// src/zeroband/C/csrc/compression.cpp): 256 buckets 6 sigma / 256 wide centred on 0, sigma the values' norm over
/// sqrt(n - 1), each value to the nearest bucket (the outermost beyond them) and back as the mean of its bucket's
/// values (the 1 KiB table of means travels beside the indices and is not counted). FP32 and `automatic` leave
/// them as they are.
void round_to_precision(std::span<float> values, OuterPrecision precision);

}  // namespace dtsim::sync
