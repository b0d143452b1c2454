#include "sim/runtime/model_parallel/pass_script.hpp"

#include "sim/runtime/observe/compute_spans.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <utility>

namespace dtsim::runtime {

double lost_to_collective(double product, double collective, std::optional<int> multiprocessors, int taken) {
  if (!multiprocessors || taken <= 0) return 0.0;
  if (*multiprocessors <= taken) return collective;
  const double share = static_cast<double>(taken) / *multiprocessors;
  return std::min(product * share / (1.0 - share), collective * share);
}

namespace {

/// A pass being run: its script and the index of its next step.
struct Cursor {
  const PassScript* script;
  std::size_t next = 0;
  [[nodiscard]] bool done() const { return next >= script->size(); }
  [[nodiscard]] const PassStep& at() const { return (*script)[next]; }
};

/// Runs the pass's steps in order up to its next exchange, which it returns unrun (null at the pass's end).
const PassStep* advance(Cursor& pass, const Meter& meter) {
  while (!pass.done()) {
    const PassStep& step = pass.at();
    ++pass.next;
    switch (step.kind) {
      case PassStep::Kind::Exchange: return &step;
      case PassStep::Kind::Compute: charge_compute(meter, step.flops); break;
      case PassStep::Kind::Communicate: step.run(); break;
    }
  }
  return nullptr;
}

/// The FLOPs of the pass's compute steps up to its next communication, taken from it.
double take_compute(Cursor& pass) {
  double flops = 0.0;
  for (; !pass.done() && pass.at().kind == PassStep::Kind::Compute; ++pass.next) flops += pass.at().flops;
  return flops;
}

}  // namespace

void run_beside(const std::function<void()>& communication, double flops, const Meter& meter, const Meter& exposed,
                std::optional<int> multiprocessors, int taken) {
  const double start = simgrid::s4u::Engine::get_clock();
  simgrid::s4u::ExecPtr compute = flops > 0.0 ? start_compute(meter, flops) : nullptr;
  communication();
  const double communicated = simgrid::s4u::Engine::get_clock();
  double computed = start;
  if (compute) {
    compute->wait();
    computed = compute->get_finish_time();
    meter.account_until(computed);
    computed += lost_to_collective(computed - start, communicated - start, multiprocessors, taken);
    const double now = simgrid::s4u::Engine::get_clock();
    if (computed > now) charge_compute(meter, (computed - now) * simgrid::s4u::this_actor::get_host()->get_speed());
  }
  if (communicated > computed) {
    const Span late{computed, communicated};
    exposed.observer().on_communication(exposed.lane(), late, std::span<const Span>(&late, 1));
  }
}

void run_interleaved(const PassScript& first, const PassScript& second, const Meter& meter, const Meter& exposed,
                     std::optional<int> multiprocessors, int taken) {
  Cursor running{&first};
  Cursor other{&second};
  const PassStep* exchange = advance(running, meter);
  while (exchange != nullptr) {
    run_beside(exchange->run, take_compute(other), meter, exposed, multiprocessors, taken);
    // The pass that computed beside the exchange goes on to its own next exchange; the other's compute after
    // the exchange runs beside that one.
    std::swap(running, other);
    exchange = advance(running, meter);
  }
  // One pass is done: the other runs the rest of its steps alone.
  for (const PassStep* last = advance(other, meter); last != nullptr; last = advance(other, meter)) last->run();
}

}  // namespace dtsim::runtime
