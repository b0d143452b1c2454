#pragma once
// The memory a simulation holds on this machine, estimated before it starts: the SimGrid actors of every
// worker simulated (their stacks as deep as they go, their hosts, links and activities) and dtsim's own state
// per worker. A cluster too large for the machine is refused with the estimate and what the machine has,
// instead of being killed by the kernel part-way.

#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>

namespace dtsim::checks {

/// Bytes a simulated worker holds, at most, as measured (bench/large_cluster.sh, see the .cpp).
inline constexpr double kBytesPerSimulatedWorker = 64.0 * 1024.0;

/// The workers the run simulates: every one, or the few that stand for all when they are alike
/// (runtime::mirroring_of).
int simulated_workers(const scenario::Scenario& s, const runtime::TrainingSetup& setup);

/// The estimate of the simulation's memory: kBytesPerSimulatedWorker per simulated worker and per server.
double simulation_bytes(const scenario::Scenario& s, const runtime::TrainingSetup& setup);

/// Throws core::InputError at `cluster.workers` when simulation_bytes() exceeds `available` (no check when the
/// machine's memory is unknown).
void check_simulation_memory(const scenario::Scenario& s, const runtime::TrainingSetup& setup,
                             std::optional<double> available);

/// Address space an actor's stack takes (SimGrid's default stack, mapped whole though touched only as deep as the
/// actor goes: sim/runtime/network/engine_session.cpp).
inline constexpr double kStackBytesPerActor = 8.0 * 1024.0 * 1024.0;

/// The address space this process may map (`ulimit -v`, RLIMIT_AS); nullopt where it is unlimited.
std::optional<double> address_space_limit();

/// Throws core::InputError at `cluster.workers` when the simulated workers' stacks alone (one actor each, at
/// least) would not fit in `limit`: SimGrid would abort part-way, failing to allocate a stack. No check without
/// a limit.
void check_address_space(const scenario::Scenario& s, const runtime::TrainingSetup& setup, std::optional<double> limit);

}  // namespace dtsim::checks
