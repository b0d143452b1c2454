#pragma once
// A worker's gradient allreduces run beside its backward pass: an actor on the same host (a communication
// stream) allreduces the buckets in the order the worker hands them over, while the worker computes on.

#include "sim/comm/collective_algorithm.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dtsim::runtime {

class GradientStream {
 public:
  /// Starts the stream's actor on the calling actor's host. Each of `iterations` steps it runs `collective`
  /// (the allreduce, or ZeRO's reduce-scatter) on one block per entry of `buckets` (message elements), in
  /// order, each once the worker has handed it over.
  GradientStream(const TrainingContext& context, int rank, const comm::CollectiveAlgorithm& collective,
                 std::vector<std::size_t> buckets, std::int64_t iterations);
  /// The same among `members` (worker ranks; this worker at `position`; empty: every worker) on channels
  /// called `name`: a model-parallel device's replicas, meeting in `meeting`. Its transfers are booked as
  /// `carried` traffic (ZeRO's parameter gathers run on such a stream too).
  GradientStream(const TrainingContext& context, int rank, const comm::CollectiveAlgorithm& collective,
                 std::vector<std::size_t> buckets, std::int64_t iterations, std::string name, std::vector<int> members,
                 int position, AnalyticalMeeting meeting = {}, Traffic carried = Traffic::Data);

  /// The next bucket's gradients are computed: its allreduce may start.
  void hand_over();
  /// The next bucket is `work` on the stream's transport instead of the collective on a block of its size: a
  /// real-math run's exchange of values (kept alive by the caller until it is waited for).
  void hand_over(std::function<void(S4uTransport&)> work);
  /// Blocks until every bucket handed over is averaged; the time blocked is the worker's waiting.
  void wait_for_all(const Meter& meter);
  /// Blocks until the first `count` buckets since the start are done, as wait_for_all.
  void wait_for(std::int64_t count, const Meter& meter);
  /// Buckets handed over since the start.
  [[nodiscard]] std::int64_t handed() const;

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace dtsim::runtime
