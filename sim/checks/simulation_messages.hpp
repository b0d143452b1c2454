#pragma once
// The wall time a simulation message by message would take, estimated before it starts from the messages a
// data-parallel step's gradient collectives post: p x (a rank's messages) a bucket, a ring allreduce 2p(p-1) where
// its rounds differ (routes of unequal length, as on a fat tree), 4p where identical rounds run as one transfer
// (PhaseShortcut). SimGrid's time a message grows with the flows that share links with it, so a fat tree's step
// grows as p^3: a step estimated past kMostSecondsAStep is refused up front with the estimate, and the analytical
// network, which times a phase at once, as the way.

#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

#include <cstdint>
#include <optional>
#include <span>

namespace dtsim::checks {

/// Wall time a step may take, estimated: an hour on the 2-core machine the constants were measured on.
inline constexpr double kMostSecondsAStep = 3600.0;
/// Wall time of a message whose round differs from the others', per rank of the collective (every rank's flows
/// share the fabric's links with it): see the .cpp for the measurements.
inline constexpr double kSecondsPerMessageAndRank = 6e-9;
/// Wall time of a transfer that stands for a phase's identical rounds, whose flows share no link.
inline constexpr double kSecondsPerShortcutMessage = 30e-6;

struct StepMessages {
  /// Every rank's messages of one step's gradient collectives: those sent round by round, and the transfers
  /// that stand for identical rounds.
  double messages = 0.0;
  double shortcut_messages = 0.0;
  /// Calls of the collective a step (buckets), and one rank's messages in each.
  std::int64_t calls = 0;
  std::int64_t rank_messages = 0;
  /// The step's wall time, estimated from them.
  double seconds = 0.0;
};

/// The messages a step's gradient collectives post message by message: a lower bound on what the step
/// posts (its other messages are not counted). nullopt for a run it does not count: a network that times
/// phases at once, a mode other than a timing-only data-parallel one, or a collective whose steps the count
/// cannot follow.
[[nodiscard]] std::optional<StepMessages> gradient_messages(const scenario::Scenario& s, const runtime::TrainingSetup& setup,
                                                           bool shortcut_checked);

/// Throws core::InputError at `cluster.workers` when a step's estimated wall time passes kMostSecondsAStep.
void check_simulation_messages(const scenario::Scenario& s, const runtime::TrainingSetup& setup);

/// Throws core::InputError at `jobs` when a step of `s`'s jobs beside each other (`setups`, by job) is estimated past
/// kMostSecondsAStep: every job's gradient messages, each sharing the fabric with every job's ranks' flows.
void check_cluster_messages(const scenario::Scenario& s, std::span<const runtime::TrainingSetup> setups);

}  // namespace dtsim::checks
