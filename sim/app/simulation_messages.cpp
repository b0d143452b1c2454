#include "sim/app/simulation_messages.hpp"

#include "models/gradient_buckets.hpp"
#include "sim/comm/message_count.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/runtime/network_backend.hpp"
#include "sim/runtime/phase_shortcut.hpp"
#include "sim/runtime/training_context.hpp"
#include "sim/topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::app {

// kMostMessagesAStep: one timing-only ResNet-50 step message by message on a two-level fat tree (arity 16),
// whose ring rounds differ, posts 2 buckets x 2p(p-1) messages: 4.2 million on 1,024 GPUs took 15 s on the
// 2-core machine, 67 million on 4,096 over 200 s (docs/limits.md), some 3 to 4 us a message and growing
// with p. A billion messages is about an hour a step at that pace.

namespace {

struct Bucketing {
  std::int64_t calls = 0;
  std::size_t elements = 0;
};

/// The step's gradient collective calls and the largest one's elements on the wire, as TimingOnlyWorker cuts
/// them.
Bucketing bucketing(const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
  const models::ModelProfile& profile = setup.profile();
  const int bytes = s.training.wire.gradients;
  const auto ranks = static_cast<std::size_t>(s.cluster.workers);
  if (!setup.overlap) return {1, runtime::wire_elements(profile.parameters(), bytes, ranks)};
  Bucketing out;
  for (const models::GradientBucket& bucket : models::gradient_buckets(profile, setup.bucket_bytes, bytes)) {
    if (bucket.parameters <= 0) continue;
    ++out.calls;
    out.elements = std::max(out.elements, runtime::wire_elements(bucket.parameters, bytes, ranks));
  }
  return out;
}

}  // namespace

std::optional<StepMessages> gradient_messages(const scenario::Scenario& s, const runtime::TrainingSetup& setup,
                                              bool shortcut_checked) {
  if (runtime::network_backend(s.topology.network_model).times_phases_at_once()) return std::nullopt;
  if (setup.mode != runtime::RunMode::TimingDataParallel || s.cluster.workers < 2) return std::nullopt;
  const Bucketing cut = bucketing(s, setup);
  if (cut.calls == 0) return std::nullopt;
  const comm::CollectiveAlgorithm& algorithm =
      setup.zero_stage > 0 ? setup.collectives.reduce_scatter() : setup.collectives.allreduce();
  const std::optional<comm::RankMessages> rank =
      comm::count_rank_messages(algorithm, 0, s.cluster.workers, setup.graph.worker_machines(), cut.elements);
  if (!rank) return std::nullopt;
  // The rounds of a phase run as two transfers where they are provably identical (SimGridMessages::shift_rounds):
  // deciding it searches the routes, so it is done only where the count without it is too large.
  std::optional<topology::RoutingTable> routes;
  std::optional<runtime::PhaseShortcut> shortcut;
  if (shortcut_checked && runtime::may_shorten_phases(s, setup)) {
    routes.emplace(setup.graph);
    shortcut.emplace(setup.graph, *routes,
                     std::vector<topology::NodeId>(setup.graph.workers().begin(), setup.graph.workers().end()),
                     s.topology.network_model == scenario::NetworkModel::Tcp);
  }
  std::int64_t messages = rank->messages;
  for (const comm::CountedPhase& phase : rank->phases) {
    messages += phase.rounds >= 3 && shortcut && shortcut->applies(phase.shift) ? 2 : phase.rounds;
  }
  return StepMessages{static_cast<double>(messages) * static_cast<double>(cut.calls) * s.cluster.workers, cut.calls,
                      messages};
}

void check_simulation_messages(const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
  std::optional<StepMessages> step = gradient_messages(s, setup, false);
  if (!step || step->messages <= kMostMessagesAStep) return;
  step = gradient_messages(s, setup, true);
  if (!step || step->messages <= kMostMessagesAStep) return;
  core::Diagnostic diagnostic;
  diagnostic.where = s.cluster.workers_at;
  diagnostic.key = "cluster.workers";
  diagnostic.message = fmt::format(
      "message by message, a step of {} workers posts at least {:.3g} billion messages ({} gradient {} of {} messages "
      "a rank), more than the {:.3g} billion a step that take about an hour on 2 cores",
      s.cluster.workers, step->messages / 1e9, step->calls, setup.zero_stage > 0 ? "reduce-scatters" : "allreduces",
      step->rank_messages, kMostMessagesAStep / 1e9);
  diagnostic.hint = "use topology.network_model: analytical, which times each phase of a collective at once (a GPT-2 XL "
                    "step on 65,536 GPUs in about 11 s, docs/validation.md), or fewer workers";
  throw core::InputError(std::move(diagnostic));
}

}  // namespace dtsim::app
