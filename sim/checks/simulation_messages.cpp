#include "sim/checks/simulation_messages.hpp"

#include "models/gradient_buckets.hpp"
#include "sim/comm/message_count.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/network_backend.hpp"
#include "sim/runtime/network/phase_shortcut.hpp"
#include "sim/topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace dtsim::checks {

// kSecondsPerMessageAndRank: one timing-only ResNet-50 step message by message on a two-level fat tree (arity 16),
// whose ring rounds differ, posts 2 buckets x 2p(p-1) messages; on the 2-core machine (bench/large_cluster.sh,
// TOPOLOGY=fat_tree MODEL=resnet50) 512 GPUs took 3.6 s (1.05 million messages: 6.7 ns a message and rank), 1,024
// 25.3 s (4.19 million: 5.9 ns), 2,048 200.6 s (16.8 million: 5.8 ns): SimGrid shares the rates anew among the
// flows that share links at every event, and on a fat tree every rank's flows do. 6 ns a message and rank.
// kSecondsPerShortcutMessage: GPT-2 XL on a ring, whose phases' rounds are identical and run as two transfers a
// rank a phase (73 buckets, 4 transfers each a rank), 16,384 workers 127 s (4.8 million: 26 us each, the step's
// compute spans included), 65,536 561 s (19.1 million: 29 us). 30 us.

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
  std::int64_t rounds = rank->messages;
  std::int64_t shortened = 0;
  for (const comm::CountedPhase& phase : rank->phases) {
    if (phase.rounds >= 3 && shortcut && shortcut->applies(phase.shift)) {
      shortened += 2;
    } else {
      rounds += phase.rounds;
    }
  }
  const double each_rank = static_cast<double>(cut.calls) * s.cluster.workers;
  StepMessages out;
  out.messages = static_cast<double>(rounds) * each_rank;
  out.shortcut_messages = static_cast<double>(shortened) * each_rank;
  out.calls = cut.calls;
  out.rank_messages = rounds + shortened;
  out.seconds = out.messages * kSecondsPerMessageAndRank * s.cluster.workers +
                out.shortcut_messages * kSecondsPerShortcutMessage;
  return out;
}

namespace {

/// "3.7 hours", "78 days": an estimate's order, not its digits.
std::string rough_duration(double seconds) {
  if (seconds < 2.0 * 86'400.0) return fmt::format("{:.2g} hours", seconds / 3600.0);
  if (seconds < 2.0 * 365.0 * 86'400.0) return fmt::format("{:.2g} days", seconds / 86'400.0);
  return fmt::format("{:.2g} years", seconds / (365.0 * 86'400.0));
}

/// "268 million", "17.2 billion".
std::string rough_count(double count) {
  return count < 1e9 ? fmt::format("{:.3g} million", count / 1e6) : fmt::format("{:.3g} billion", count / 1e9);
}

}  // namespace

void check_simulation_messages(const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
  std::optional<StepMessages> step = gradient_messages(s, setup, false);
  if (!step || step->seconds <= kMostSecondsAStep) return;
  step = gradient_messages(s, setup, true);
  if (!step || step->seconds <= kMostSecondsAStep) return;
  core::Diagnostic diagnostic;
  diagnostic.where = s.cluster.workers_at;
  diagnostic.key = "cluster.workers";
  diagnostic.message = fmt::format(
      "message by message, a step of {} workers posts at least {} messages ({} gradient {} of {} messages a rank), "
      "some {} of wall time a step on 2 cores, past the hour a step may take",
      s.cluster.workers, rough_count(step->messages + step->shortcut_messages), step->calls,
      setup.zero_stage > 0 ? "reduce-scatters" : "allreduces", step->rank_messages, rough_duration(step->seconds));
  diagnostic.hint = "use topology.network_model: analytical, which times each phase of a collective at once (a GPT-2 XL "
                    "step on 65,536 GPUs in about 11 s, docs/validation.md), or fewer workers";
  throw core::InputError(std::move(diagnostic));
}

void check_cluster_messages(const scenario::Scenario& s, std::span<const runtime::TrainingSetup> setups) {
  // Other jobs' traffic keeps a run of several jobs from shortening phases: every round is counted.
  double messages = 0.0;
  int ranks = 0;
  for (std::size_t j = 0; j < s.jobs.size() && j < setups.size(); ++j) {
    ranks += s.jobs[j].workers;
    if (const std::optional<StepMessages> step = gradient_messages(*s.jobs[j].scenario, setups[j], false)) {
      messages += step->messages;
    }
  }
  const double seconds = messages * kSecondsPerMessageAndRank * ranks;
  if (seconds <= kMostSecondsAStep) return;
  core::Diagnostic diagnostic;
  diagnostic.where = s.jobs.front().where;
  diagnostic.key = "jobs";
  diagnostic.message = fmt::format(
      "message by message, a step of the {} jobs beside each other ({} workers sharing the fabric) posts at least {} "
      "messages in its gradient collectives, some {} of wall time a step on 2 cores, past the hour a step may take "
      "(and each job is simulated again alone)",
      s.jobs.size(), ranks, rough_count(messages), rough_duration(seconds));
  diagnostic.hint = "use topology.network_model: analytical, which times each phase of a collective at once, or fewer "
                    "workers";
  throw core::InputError(std::move(diagnostic));
}

}  // namespace dtsim::checks
