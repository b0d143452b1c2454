#include "sim/runtime/observe/run_recorder.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace dtsim::runtime {
namespace {

double total_of(std::span<const Span> spans) {
  double total = 0.0;
  for (const Span& span : spans) total += span.end - span.start;
  return total;
}

}  // namespace

metrics::HostActivity& RunRecorder::activity_of(Lane lane) {
  if (lane.actor == 0 && !lane.concurrent) return record_->hosts.at(static_cast<std::size_t>(lane.host));
  return helpers_[{lane.host, lane.actor}].activity;
}

void RunRecorder::on_compute(Lane lane, Span span) {
  if (lane.concurrent) {
    helpers_[{lane.host, lane.actor}].spans.push_back(span);
    return;
  }
  activity_of(lane).compute_s += span.end - span.start;
}

namespace {

double& carried(metrics::HostActivity& activity, Traffic traffic) {
  switch (traffic) {
    case Traffic::Tensor: return activity.tensor_communication_s;
    case Traffic::Pipeline: return activity.pipeline_communication_s;
    case Traffic::Zero: return activity.zero_communication_s;
    case Traffic::Expert: return activity.expert_communication_s;
    case Traffic::Context: return activity.context_communication_s;
    case Traffic::Data: break;
  }
  return activity.data_communication_s;
}

}  // namespace

void RunRecorder::on_communication(Lane lane, Span blocked, std::span<const Span> moving) {
  const double busy = total_of(moving);
  metrics::HostActivity& activity = activity_of(lane);
  activity.communication_s += busy;
  carried(activity, lane.traffic) += busy;
  activity.wait_s += std::max(0.0, blocked.end - blocked.start - busy);
}

void RunRecorder::on_wait(Lane lane, Span span) { activity_of(lane).wait_s += span.end - span.start; }

void RunRecorder::on_sent(Lane lane, double bytes, std::int64_t messages) {
  metrics::HostActivity& activity = activity_of(lane);
  activity.bytes_sent += bytes;
  activity.messages_sent += messages;
  if (lane.traffic == Traffic::Expert) {
    activity.expert_bytes_sent += bytes;
    activity.expert_messages_sent += messages;
  }
  if (lane.traffic == Traffic::Context) activity.context_bytes_sent += bytes;
}

void RunRecorder::on_lane_done(Lane lane) {
  const auto found = helpers_.find({lane.host, lane.actor});
  if (found == helpers_.end()) return;
  Helper& helper = found->second;
  if (lane.concurrent) {
    constexpr double kForever = std::numeric_limits<double>::infinity();
    helper.activity.compute_s += total_of(disjoint_union(std::move(helper.spans), {-kForever, kForever}));
  }
  metrics::HostActivity& host = record_->hosts.at(static_cast<std::size_t>(lane.host));
  host.compute_s += helper.activity.compute_s;
  (lane.overlapped ? host.overlapped_communication_s : host.communication_s) += helper.activity.communication_s;
  if (!lane.overlapped) {
    for (const Traffic traffic :
         {Traffic::Data, Traffic::Tensor, Traffic::Pipeline, Traffic::Zero, Traffic::Expert, Traffic::Context}) {
      carried(host, traffic) += carried(helper.activity, traffic);
    }
  }
  host.bytes_sent += helper.activity.bytes_sent;
  host.messages_sent += helper.activity.messages_sent;
  host.expert_bytes_sent += helper.activity.expert_bytes_sent;
  host.expert_messages_sent += helper.activity.expert_messages_sent;
  host.context_bytes_sent += helper.activity.context_bytes_sent;
  helpers_.erase(found);
}

void RunRecorder::on_evaluation(const metrics::EvaluationRow& row) {
  metrics::EvaluationRow counted = row;
  counted.bytes_sent = record_->total_bytes_sent();
  record_->evaluations.push_back(counted);
}

void RunRecorder::on_checkpoint(double /*at_s*/, double write_s) {
  ++record_->checkpoints;
  record_->checkpoint_s += write_s;
}

void RunRecorder::on_link_change(std::string_view link, double at_s, bool down) {
  record_->link_events.push_back({std::string(link), at_s, down});
}

void RunRecorder::on_gradients_received(std::span<const std::int64_t> by_worker) {
  record_->gradients_by_worker.assign(by_worker.begin(), by_worker.end());
}

}  // namespace dtsim::runtime
