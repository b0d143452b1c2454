#pragma once
// The messages a simulation posts message by message, counted before it starts. A data-parallel step's
// gradient collectives post p x (a rank's messages) a bucket: a ring allreduce 2p(p-1) where its rounds differ
// (routes of unequal length, as on a fat tree), 4p where identical rounds run as one transfer (PhaseShortcut).
// SimGrid spends microseconds a message, so a step past kMostMessagesAStep would run for hours: it is refused
// up front with the count, and the analytical network, which times a phase at once, as the way.

#include "sim/runtime/training_setup.hpp"
#include "sim/scenario/scenario.hpp"

#include <cstdint>
#include <optional>

namespace dtsim::app {

/// Messages a step may post message by message (see the .cpp for the measurements behind it).
inline constexpr double kMostMessagesAStep = 1e9;

struct StepMessages {
  /// Every rank's messages of one step's gradient collectives.
  double messages = 0.0;
  /// Calls of the collective a step (buckets), and one rank's messages in each.
  std::int64_t calls = 0;
  std::int64_t rank_messages = 0;
};

/// The messages a step's gradient collectives post message by message: a lower bound on what the step
/// posts (its other messages are not counted). nullopt for a run it does not count: a network that times
/// phases at once, a mode other than a timing-only data-parallel one, or a collective whose steps the count
/// cannot follow.
[[nodiscard]] std::optional<StepMessages> gradient_messages(const scenario::Scenario& s, const runtime::TrainingSetup& setup,
                                                           bool shortcut_checked);

/// Throws core::InputError at `cluster.workers` when a step posts more than kMostMessagesAStep messages.
void check_simulation_messages(const scenario::Scenario& s, const runtime::TrainingSetup& setup);

}  // namespace dtsim::app
