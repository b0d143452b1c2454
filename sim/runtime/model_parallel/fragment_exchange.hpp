#pragma once
// A worker's Streaming DiLoCo outer steps, fragment by fragment (sync/streaming_diloco.cpp): the global
// parameters and the outer momentum, each fragment's outer gradient while it is on its way, and the stream its
// exchanges run on beside the inner steps. Real values when trained for real, sizes alone on a timing-only
// profile.

#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/model_parallel/gradient_stream.hpp"
#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/sync/fragment_schedule.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace dtsim::runtime {

class FragmentExchange {
 public:
  /// Worker `rank`'s exchanges of `parameters` values (its model's; a timing-only profile's count), at the wire
  /// precision of `parameter_bytes` bytes where the strategy's precision is automatic, over `group`.
  FragmentExchange(const TrainingContext& context, int rank, const Meter& meter, S4uTransport& group,
                   std::size_t parameters, int parameter_bytes);
  /// Waits for the exchanges still on their way (a run stopped early at its target loss), whose values it holds.
  ~FragmentExchange();
  FragmentExchange(const FragmentExchange&) = delete;
  FragmentExchange& operator=(const FragmentExchange&) = delete;

  /// Real math: the global parameters start as the worker's initial ones.
  void start_from(std::span<const float> initial);
  /// The fragment's outer gradient (global less `own`; empty on a timing-only profile) leaves for its allreduce.
  void send(int fragment, std::span<const float> own);
  /// Waits for the fragment's averaged outer gradient, steps the global fragment, mixes it into `own`.
  void merge(int fragment, std::span<float> own);

 private:
  /// The allreduce of fragment `fragment`'s outer gradient over `transport`.
  void exchange(int fragment, S4uTransport& transport);
  [[nodiscard]] std::size_t wire_elements_of(int fragment) const;

  const TrainingContext& context_;
  const Meter& meter_;
  S4uTransport& group_;
  const sync::StreamingSettings& settings_;
  const sync::OuterOptimizer& outer_;
  sync::FragmentSchedule schedule_;
  std::size_t parameters_;
  int bits_;  ///< on the wire, a value
  std::vector<float> global_;
  std::vector<float> velocity_;
  std::vector<std::vector<float>> on_the_way_;  ///< each fragment's outer gradient, real math
  std::vector<std::int64_t> ticket_;            ///< each fragment's last hand-over to the stream
  std::optional<GradientStream> stream_;
};

}  // namespace dtsim::runtime
