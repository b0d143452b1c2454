#include "sim/runtime/observe/run_observer.hpp"

#include <algorithm>

namespace dtsim::runtime {

std::vector<Span> disjoint_union(std::vector<Span> spans, Span within) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.start < b.start || (a.start == b.start && a.end < b.end); });
  std::vector<Span> out;
  double covered_until = within.start;
  for (const Span& span : spans) {
    const double from = std::max(span.start, covered_until);
    const double to = std::min(span.end, within.end);
    if (to > from) {
      out.push_back({from, to});
      covered_until = to;
    }
  }
  return out;
}

void ObserverList::on_compute(Lane lane, Span span) {
  for (RunObserver* o : observers_) o->on_compute(lane, span);
}
void ObserverList::on_communication(Lane lane, Span blocked, std::span<const Span> moving) {
  for (RunObserver* o : observers_) o->on_communication(lane, blocked, moving);
}
void ObserverList::on_wait(Lane lane, Span span) {
  for (RunObserver* o : observers_) o->on_wait(lane, span);
}
void ObserverList::on_sent(Lane lane, double bytes, std::int64_t messages) {
  for (RunObserver* o : observers_) o->on_sent(lane, bytes, messages);
}
void ObserverList::on_lane_done(Lane lane) {
  for (RunObserver* o : observers_) o->on_lane_done(lane);
}
void ObserverList::on_message(std::string_view from_host, Lane to, Span transfer, double bytes) {
  for (RunObserver* o : observers_) {
    if (o->wants_messages()) o->on_message(from_host, to, transfer, bytes);
  }
}
bool ObserverList::wants_messages() const {
  return std::any_of(observers_.begin(), observers_.end(), [](const RunObserver* o) { return o->wants_messages(); });
}
void ObserverList::on_iteration(std::int64_t iteration, double at_s, const topology::LinkTraffic& traffic) {
  for (RunObserver* o : observers_) o->on_iteration(iteration, at_s, traffic);
}
void ObserverList::on_gradient_staleness(std::int64_t staleness) {
  for (RunObserver* o : observers_) o->on_gradient_staleness(staleness);
}
void ObserverList::on_update() {
  for (RunObserver* o : observers_) o->on_update();
}
void ObserverList::on_push(int worker, double relative, std::int64_t delay, bool last) {
  for (RunObserver* o : observers_) o->on_push(worker, relative, delay, last);
}
void ObserverList::on_update_measured(std::int64_t staleness, double rate_factor) {
  for (RunObserver* o : observers_) {
    if (o->measures_updates()) o->on_update_measured(staleness, rate_factor);
  }
}
bool ObserverList::measures_updates() const {
  return std::any_of(observers_.begin(), observers_.end(), [](const RunObserver* o) { return o->measures_updates(); });
}
void ObserverList::on_evaluation(const metrics::EvaluationRow& row) {
  for (RunObserver* o : observers_) o->on_evaluation(row);
}
void ObserverList::on_final_parameters(std::span<const float> parameters) {
  for (RunObserver* o : observers_) o->on_final_parameters(parameters);
}
void ObserverList::on_failure(const metrics::FailureRecord& failure) {
  for (RunObserver* o : observers_) o->on_failure(failure);
}
void ObserverList::on_checkpoint(double at_s, double write_s) {
  for (RunObserver* o : observers_) o->on_checkpoint(at_s, write_s);
}
void ObserverList::on_link_change(std::string_view link, double at_s, bool down) {
  for (RunObserver* o : observers_) o->on_link_change(link, at_s, down);
}
void ObserverList::on_job_lost(double at_s) {
  for (RunObserver* o : observers_) o->on_job_lost(at_s);
}

void ObserverList::on_partition(const metrics::Partition& partition) {
  for (RunObserver* o : observers_) o->on_partition(partition);
}
void ObserverList::on_gradients_received(std::span<const std::int64_t> by_worker) {
  for (RunObserver* o : observers_) o->on_gradients_received(by_worker);
}

}  // namespace dtsim::runtime
