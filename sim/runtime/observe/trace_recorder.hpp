#pragma once
// The observer that records a run's timeline (metrics::Timeline): spans of a sample of hosts, the messages
// between them and the links' bytes at each iteration's end, bounded so that a thousand-worker run stays
// small: the first `iterations` iterations (by worker 0's clock), at most `hosts` hosts, and at most
// `events` spans and messages, after which it stops where it is.

#include "sim/metrics/timeline.hpp"
#include "sim/runtime/observe/run_observer.hpp"
#include "sim/topology/topology_graph.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace dtsim::runtime {

struct TraceBounds {
  std::int64_t iterations = 10;  ///< 0: every iteration
  std::int64_t hosts = 64;       ///< 0: every host
  std::int64_t events = 400'000;
};

class TraceRecorder final : public RunObserver {
 public:
  /// Hosts are `host_names` (workers by rank, then servers); `graph` gives the link directions, in the
  /// order RunRecord::links lists them, and must outlive this.
  TraceRecorder(std::vector<std::string> host_names, const topology::TopologyGraph& graph, TraceBounds bounds,
                bool pipeline);

  void on_compute(Lane lane, Span span) override;
  void on_communication(Lane lane, Span blocked, std::span<const Span> moving) override;
  void on_wait(Lane lane, Span span) override;
  void on_message(std::string_view from_host, Lane to, Span transfer, double bytes) override;
  [[nodiscard]] bool wants_messages() const override { return true; }
  void on_iteration(std::int64_t iteration, double at_s, const topology::LinkTraffic& traffic) override;
  void on_checkpoint(double at_s, double write_s) override;

  /// The timeline, once the run has ended: spans in (host, lane, start) order.
  [[nodiscard]] metrics::Timeline take();

 private:
  /// Adds a span of a followed host, clipped where the timeline stops.
  void add(Lane lane, metrics::SpanKind kind, Span span);
  void spend(std::size_t events, double now);
  [[nodiscard]] bool followed(int host) const { return follow_[static_cast<std::size_t>(host)]; }

  const topology::TopologyGraph* graph_;
  TraceBounds bounds_;
  bool pipeline_;
  std::vector<bool> follow_;
  std::unordered_map<std::string, int> host_index_;
  std::int64_t events_ = 0;
  /// Per (host, lane): one past the index of its last span (0: none yet).
  std::map<std::pair<int, int>, std::size_t> last_span_;
  std::set<std::pair<int, int>> concurrent_;
  metrics::Timeline timeline_;
};

}  // namespace dtsim::runtime
