#include "sim/checks/simulation_memory.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/core/units.hpp"
#include "sim/runtime/data_parallel/mirrored_ranks.hpp"
#include "sim/runtime/network/network_backend.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

namespace dtsim::checks {

// kBytesPerSimulatedWorker: peak resident memory over workers of one timing-only iteration message by message
// on the 2-core machine (bench/large_cluster.sh), 45 KB a worker for GPT-2 XL on a ring of 16,384 (0.74 GB)
// and of 65,536 (2.72 GiB), 43 KB for ResNet-50 on a fat tree of 65,536 (2.61 GiB, arity 16), rounded up to
// 64 KiB: the bound leaves room for what the measured runs did not have (a trace, more layers, model-parallel
// peers); it is not fitted to any run.

int simulated_workers(const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
  switch (runtime::mirroring_of(s, setup)) {
    case runtime::Mirroring::every_worker: return 1;
    case runtime::Mirroring::replicas: return s.training.parallelism.tensor * s.training.parallelism.pipeline;
    case runtime::Mirroring::none: break;
  }
  return s.cluster.workers;
}

double simulation_bytes(const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
  const auto actors = static_cast<double>(simulated_workers(s, setup)) + static_cast<double>(setup.graph.servers().size());
  return kBytesPerSimulatedWorker * actors;
}

void check_simulation_memory(const scenario::Scenario& s, const runtime::TrainingSetup& setup,
                             std::optional<double> available) {
  if (!available) return;
  const double need = simulation_bytes(s, setup);
  if (need <= *available) return;
  const auto size = [](double bytes) { return core::format_size(core::Bytes(bytes)); };
  const int simulated = simulated_workers(s, setup);
  const runtime::NetworkBackend& backend = runtime::network_backend(s.topology.network_model);
  const bool analytical = backend.times_phases_at_once();
  core::Diagnostic diagnostic;
  diagnostic.where = s.cluster.workers_at;
  diagnostic.key = "cluster.workers";
  diagnostic.message =
      fmt::format("simulating {} of the {} workers {} needs about {} of memory ({} a worker), and this machine has {} "
                  "available",
                  simulated, s.cluster.workers,
                  analytical ? fmt::format("on {}", backend.times_only()) : std::string("message by message"),
                  size(need), size(kBytesPerSimulatedWorker), size(*available));
  diagnostic.hint = analytical ? "use fewer workers, or run on a machine with more memory"
                               : "use topology.network_model: analytical, under which a timing-only data-parallel job of "
                                 "equal workers simulates one worker for all (docs/how-it-works.md), or fewer workers";
  throw core::InputError(std::move(diagnostic));
}

std::optional<double> address_space_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<double>(limit.rlim_cur);
}

void check_address_space(const scenario::Scenario& s, const runtime::TrainingSetup& setup, std::optional<double> limit) {
  if (!limit) return;
  const int simulated = simulated_workers(s, setup);
  const double need = kStackBytesPerActor * (static_cast<double>(simulated) + static_cast<double>(setup.graph.servers().size()));
  if (need <= *limit) return;
  const auto size = [](double bytes) { return core::format_size(core::Bytes(bytes)); };
  core::Diagnostic diagnostic;
  diagnostic.where = s.cluster.workers_at;
  diagnostic.key = "cluster.workers";
  diagnostic.message = fmt::format("simulating {} of the {} workers maps at least {} of stacks ({} an actor, one a "
                                   "worker at least), more than the {} of address space this process may map "
                                   "(ulimit -v)",
                                   simulated, s.cluster.workers, size(need), size(kStackBytesPerActor), size(*limit));
  diagnostic.hint = "raise the limit (ulimit -v unlimited: a stack is resident only as deep as its actor goes), or use "
                    "fewer workers";
  throw core::InputError(std::move(diagnostic));
}

}  // namespace dtsim::checks
