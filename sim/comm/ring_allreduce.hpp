#pragma once
// Ring allreduce (reduce-scatter then allgather around the ring of ranks 0 -> 1 -> ... -> p-1 -> 0).
//
// The buffer is cut into p chunks. In each of the p-1 reduce-scatter steps, every rank sends one chunk
// to its successor and adds the chunk arriving from its predecessor into its own copy; afterwards rank r
// holds the complete sum of chunk (r+1) mod p. The p-1 allgather steps pass the complete chunks on.
// Each rank sends 2(p-1) messages of about n/p bytes; on a ring of identical full-duplex links
// (latency alpha, bandwidth B) every step takes alpha + n/(pB), so the whole takes 2(p-1)(alpha + n/(pB)).

#include "sim/comm/allreduce_algorithm.hpp"
#include "sim/comm/transport.hpp"
#include "sim/core/units.hpp"

#include <span>

namespace dtsim::comm {

class RingAllreduce final : public AllreduceAlgorithm {
 public:
  void run(Transport& transport, std::span<float> data) const override;
  /// 2(p-1)(alpha + n/(pB)).
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return "ring"; }
};

/// Replaces `data` on every rank with the elementwise sum over all ranks. Every rank calls it with the
/// same number of elements.
void ring_allreduce(Transport& transport, std::span<float> data);

/// Closed-form alpha-beta time of a ring allreduce of `size` on `ranks` ranks: 2(p-1)(alpha + n/(pB)).
core::Seconds ring_allreduce_time(int ranks, core::Bytes size, core::Seconds alpha, core::BytesPerSecond bandwidth);

}  // namespace dtsim::comm
