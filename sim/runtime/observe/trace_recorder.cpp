#include "sim/runtime/observe/trace_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace dtsim::runtime {
namespace {

constexpr double kForever = std::numeric_limits<double>::infinity();

/// `count` host indices spread evenly over `total`, first and last included; all of them when count is 0
/// or covers them.
std::vector<bool> sample_hosts(std::size_t total, std::int64_t count) {
  std::vector<bool> follow(total, count <= 0 || static_cast<std::size_t>(count) >= total);
  if (follow.empty() || follow.front()) return follow;
  const auto k = static_cast<std::size_t>(count);
  for (std::size_t i = 0; i < k; ++i) {
    follow[k == 1 ? 0 : (i * (total - 1) + (k - 1) / 2) / (k - 1)] = true;
  }
  return follow;
}

}  // namespace

TraceRecorder::TraceRecorder(std::vector<std::string> host_names, const topology::TopologyGraph& graph,
                             TraceBounds bounds, bool pipeline)
    : graph_(&graph), bounds_(bounds), pipeline_(pipeline), follow_(sample_hosts(host_names.size(), bounds.hosts)) {
  for (std::size_t i = 0; i < host_names.size(); ++i) {
    host_index_.emplace(std::move(host_names[i]), static_cast<int>(i));
    if (follow_[i]) timeline_.hosts.push_back(static_cast<std::int32_t>(i));
  }
  timeline_.until_s = kForever;
}

void TraceRecorder::spend(std::size_t events, double now) {
  events_ += static_cast<std::int64_t>(events);
  if (events_ >= bounds_.events && now < timeline_.until_s) {
    timeline_.until_s = now;
    timeline_.cut_reason = fmt::format("its budget of {} spans and messages (outputs.trace_events)", bounds_.events);
  }
}

void TraceRecorder::add(Lane lane, metrics::SpanKind kind, Span span) {
  if (!followed(lane.host) || span.start >= timeline_.until_s || span.end <= span.start) return;
  span.end = std::min(span.end, timeline_.until_s);
  if (lane.concurrent) concurrent_.insert({lane.host, lane.actor});
  // A span that continues the lane's last one of the same kind extends it: a ring's rounds back to back
  // read as one transfer, and the file stays small.
  std::size_t& last = last_span_[{lane.host, lane.actor}];
  if (last > 0) {
    metrics::TimelineSpan& previous = timeline_.spans[last - 1];
    if (previous.kind == kind && previous.carries == lane.traffic && previous.end == span.start) {
      previous.end = span.end;
      return;
    }
  }
  timeline_.spans.push_back({lane.host, lane.actor, kind, span.start, span.end, lane.traffic});
  last = timeline_.spans.size();
  spend(1, span.end);
}

void TraceRecorder::on_compute(Lane lane, Span span) { add(lane, metrics::SpanKind::Compute, span); }

void TraceRecorder::on_communication(Lane lane, Span blocked, std::span<const Span> moving) {
  // The same split as the run's record: moving time is communication, the rest of the blocked time waiting.
  const metrics::SpanKind waiting = pipeline_ && lane.actor == 0 ? metrics::SpanKind::Bubble : metrics::SpanKind::Wait;
  const metrics::SpanKind busy =
      lane.overlapped ? metrics::SpanKind::OverlappedCommunication : metrics::SpanKind::Communication;
  double at = blocked.start;
  for (const Span& m : moving) {
    if (m.start > at) add(lane, waiting, {at, m.start});
    add(lane, busy, m);
    at = std::max(at, m.end);
  }
  if (blocked.end > at) add(lane, waiting, {at, blocked.end});
}

void TraceRecorder::on_wait(Lane lane, Span span) { add(lane, metrics::SpanKind::Wait, span); }

void TraceRecorder::on_message(std::string_view from_host, Lane to, Span transfer, double bytes) {
  if (transfer.start >= timeline_.until_s || !followed(to.host)) return;
  const auto from = host_index_.find(std::string(from_host));
  if (from == host_index_.end() || !followed(from->second)) return;
  timeline_.messages.push_back({from->second, to.host, to.actor, transfer.start, std::min(transfer.end, timeline_.until_s), bytes});
  spend(2, transfer.end);
}

void TraceRecorder::on_iteration(std::int64_t iteration, double at_s, const topology::LinkTraffic& traffic) {
  if (at_s > timeline_.until_s) return;
  metrics::TimelineIteration row{iteration, at_s, {}};
  for (std::size_t id = 0; id < graph_->link_count(); ++id) {
    row.link_bytes.push_back(traffic.forward(id));
    if (!graph_->link(id).one_way) row.link_bytes.push_back(traffic.backward(id));
  }
  timeline_.iterations.push_back(std::move(row));
  if (bounds_.iterations > 0 && iteration >= bounds_.iterations && at_s < timeline_.until_s) {
    timeline_.until_s = at_s;
    timeline_.cut_reason = fmt::format("the first {} iterations (outputs.trace_iterations)", bounds_.iterations);
  }
}

void TraceRecorder::on_checkpoint(double at_s, double write_s) {
  if (at_s < timeline_.until_s) timeline_.checkpoints.emplace_back(at_s, at_s + write_s);
}

metrics::Timeline TraceRecorder::take() {
  // A concurrent lane's computations overlap one another: the timeline shows their union, as the record
  // counts it.
  for (const auto& [host, actor] : concurrent_) {
    std::vector<Span> compute;
    std::vector<metrics::TimelineSpan> kept;
    for (const metrics::TimelineSpan& s : timeline_.spans) {
      if (s.host == host && s.lane == actor && s.kind == metrics::SpanKind::Compute) {
        compute.push_back({s.start, s.end});
      } else {
        kept.push_back(s);
      }
    }
    for (const Span& u : disjoint_union(std::move(compute), {-kForever, kForever})) {
      kept.push_back({host, actor, metrics::SpanKind::Compute, u.start, u.end});
    }
    timeline_.spans = std::move(kept);
  }
  std::stable_sort(timeline_.spans.begin(), timeline_.spans.end(), [](const auto& a, const auto& b) {
    return std::tie(a.host, a.lane, a.start) < std::tie(b.host, b.lane, b.start);
  });
  return std::move(timeline_);
}

}  // namespace dtsim::runtime
