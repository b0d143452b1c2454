#pragma once
// A pass through a device's layers recorded instead of run, so that two micro-batches' passes can be run
// interleaved: Megatron-Core's combined 1F1B with its expert-parallel communication overlapped
// (overlap_moe_expert_parallel_comm; DeepSeek-V3's DualPipe overlaps the same way), where each token exchange
// of one micro-batch runs while the other micro-batch computes.

#include "sim/runtime/observe/run_observer.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace dtsim::runtime {

struct PassStep {
  enum class Kind {
    Compute,      ///< `flops` host FLOPs
    Communicate,  ///< a collective (or a step that waits for one), run in its place in the pass
    Exchange,     ///< a token exchange of the expert group: another pass's compute may run beside it
  };
  Kind kind = Kind::Compute;
  double flops = 0.0;
  std::function<void()> run;
};

using PassScript = std::vector<PassStep>;

/// Seconds a product loses to a collective beside it: over `collective` seconds the collective's kernel holds a
/// share s of the multiprocessors (`taken` of the device's `multiprocessors`, all of them at most), so that a
/// product of `product` seconds alone takes min(product / (1 - s), product + s x collective). None on a device
/// of unknown count.
double lost_to_collective(double product, double collective, std::optional<int> multiprocessors, int taken);

/// Runs `communication` while `flops` of compute run beside it (on this actor's host, charged to `meter`),
/// slowed by the `taken` multiprocessors its kernel holds (lost_to_collective). The part of the communication
/// that outlasts the compute is reported as `exposed`'s communication; `communication` reports to a lane of
/// its own.
void run_beside(const std::function<void()>& communication, double flops, const Meter& meter, const Meter& exposed,
                std::optional<int> multiprocessors, int taken);

/// Runs `first` and `second` (two passes of different micro-batches) as one: each pass computes up to its next
/// token exchange, and each exchange runs while the other pass's compute up to its own next communication runs
/// beside it, alternately, first's first. The exchange's kernels hold `taken` of the device's `multiprocessors`
/// while they run (lost_to_collective). Any other step runs in its place, alone. Compute is charged to `meter`;
/// the part of an exchange that outlasts the compute beside it is reported as `exposed`'s communication (the
/// exchange itself reports to a lane of its own).
void run_interleaved(const PassScript& first, const PassScript& second, const Meter& meter, const Meter& exposed,
                     std::optional<int> multiprocessors, int taken);

}  // namespace dtsim::runtime
