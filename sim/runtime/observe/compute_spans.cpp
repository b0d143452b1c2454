#include "sim/runtime/observe/compute_spans.hpp"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>

#include <mutex>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;
namespace {

void report(const s4u::Activity& activity) {
  // Only executions started below carry a Meter; communications and sleeps carry nothing.
  const auto* meter = activity.get_data<const Meter>();
  if (meter == nullptr || activity.get_state() != s4u::Activity::State::FINISHED) return;
  if (dynamic_cast<const s4u::Exec*>(&activity) == nullptr) return;
  meter->observer().on_compute(meter->lane(), {activity.get_start_time(), activity.get_finish_time()});
}

s4u::ExecPtr metered(const Meter& meter, double flops) {
  // SimGrid 3.32 lets a signal's slots be added but not removed: one slot for the process, which keeps no
  // state of its own (each execution names its meter).
  static std::once_flag connected;
  std::call_once(connected, [] { s4u::Activity::on_completion_cb(report); });
  s4u::ExecPtr exec = s4u::this_actor::exec_init(flops);
  exec->set_data(const_cast<Meter*>(&meter));  // SimGrid's data slot is untyped; report() only reads it
  return exec;
}

}  // namespace

void charge_compute(const Meter& meter, double flops) {
  if (flops <= 0.0) return;
  s4u::ExecPtr exec = metered(meter, flops);
  exec->start();
  exec->wait();
  meter.account_until(exec->get_finish_time());
}

s4u::ExecPtr start_compute(const Meter& meter, double flops) {
  s4u::ExecPtr exec = metered(meter, flops);
  exec->start();
  return exec;
}

}  // namespace dtsim::runtime
