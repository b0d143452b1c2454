#pragma once
// Compute time as SimGrid sees it: every execution an actor starts through charge_compute() or
// start_compute() carries its Meter, and SimGrid's completion signal reports the execution's
// [start, finish] to that meter's observers. Actors never time their own computations.

#include "sim/runtime/observe/run_observer.hpp"

#include <simgrid/s4u/Exec.hpp>

namespace dtsim::runtime {

/// Executes `flops` on this actor's host, reported to `meter` (which must outlive the execution).
void charge_compute(const Meter& meter, double flops);
/// Starts executing `flops` on this actor's host in the background, reported to `meter` when it completes
/// (waited or tested); `meter` must outlive the execution.
simgrid::s4u::ExecPtr start_compute(const Meter& meter, double flops);

}  // namespace dtsim::runtime
