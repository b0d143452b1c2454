#pragma once
// What a run's timeline holds, as plain data: each sampled host's spans of compute, communication and
// waiting, the messages between them, worker 0's iterations with every link's bytes at their ends, the
// losses, failures and checkpoints. The runtime's trace recorder fills it; trace.json and the report's
// Gantt view are written from it.

#include <cstdint>
#include <string>
#include <vector>

namespace dtsim::metrics {

enum class SpanKind : std::uint8_t { Compute, Communication, OverlappedCommunication, Wait, Bubble };

/// What a communication carries: the data-parallel exchange of gradients or parameters (every architecture),
/// a tensor-parallel group's sums of the hidden state, a pipeline's activations and their gradients, or ZeRO's
/// gather of partitioned parameters, an expert group's exchange of routed tokens (its all-to-alls), or a
/// context group's keys and values for attention. Model-parallel runs report each apart.
enum class Traffic : std::uint8_t { Data, Tensor, Pipeline, Zero, Expert, Context };

/// One span of one actor (`lane`: 0 the host's main actor, 1 a helper beside it) of host `host` (an index
/// into RunRecord::hosts).
struct TimelineSpan {
  std::int32_t host = 0;
  std::int32_t lane = 0;
  SpanKind kind = SpanKind::Compute;
  double start = 0.0;
  double end = 0.0;
  Traffic carries = Traffic::Data;  ///< for communication spans
};

/// A message from `from` to `to`'s lane `to_lane`, moving over [start, end].
struct TimelineMessage {
  std::int32_t from = 0;
  std::int32_t to = 0;
  std::int32_t to_lane = 0;
  double start = 0.0;
  double end = 0.0;
  double bytes = 0.0;
};

/// Worker 0 finished `iteration` at `at_s`, when the link directions (in RunRecord::links order) had
/// carried `link_bytes` in all.
struct TimelineIteration {
  std::int64_t iteration = 0;
  double at_s = 0.0;
  std::vector<double> link_bytes;
};

struct Timeline {
  /// Hosts the timeline follows (indices into RunRecord::hosts, ascending): all, or an even sample.
  std::vector<std::int32_t> hosts;
  std::vector<TimelineSpan> spans;
  std::vector<TimelineMessage> messages;
  std::vector<TimelineIteration> iterations;
  /// Checkpoints written: [start, end].
  std::vector<std::pair<double, double>> checkpoints;
  /// Spans and messages are kept up to this simulated time (the end of the last iteration kept, or where
  /// the event budget ran out); infinity when the whole run is kept.
  double until_s = 0.0;
  /// Why the timeline stops before the run's end: "" when it does not.
  std::string cut_reason;
};

}  // namespace dtsim::metrics
