#pragma once
// From a validated scenario to a runnable setup: plug-ins looked up by name, topology built, data made,
// and the checks that need more than one section. Every failure is an InputError at the scenario line.

#include "sim/checks/registries.hpp"
#include "sim/comm/library_collective.hpp"
#include "sim/runtime/setup/training_setup.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/sync/sync_strategy.hpp"

namespace dtsim::checks {

/// The checks that need the plug-ins (a server in the topology, data enough for one batch), without
/// building the data set: what `dtsim validate` runs after reading.
void check_scenario(const scenario::Scenario& scenario, const Registries& registries);

/// The scenario's synchronization strategy, configured from `training.sync`.
std::unique_ptr<sync::SyncStrategy> make_strategy(const scenario::Scenario& s, const Registries& registries);

/// The checks of how `s` splits its model (ZeRO, tensor, pipeline, expert and context parallelism, overlap,
/// recomputation) into `sink`; `profile` is the timing-only model's layer table (null for a model trained for
/// real). What `dtsim plan` screens each candidate with, before its memory.
void check_split(const scenario::Scenario& s, const sync::SyncStrategy& strategy, const models::ModelProfile* profile,
                 const Registries& registries, core::DiagnosticSink& sink);

/// Whether a timing-only run of `s` reduces its gradient buckets during the backward pass: `training.overlap`,
/// or, unset, wherever the run can.
bool overlaps_gradients(const scenario::Scenario& s, const sync::SyncStrategy& strategy);

/// check_scenario on every point of a document, all problems reported together (each once). A problem of a
/// sweep point names, in its hint, the point and where the sweep sets each of its values: the error's own
/// line is the key it found at fault, which the swept value may have put there.
void check_every_point(const scenario::ScenarioDocument& document, const Registries& registries);

/// `algorithm` run as communication library `library` ("none" or "nccl") runs it on the nodes of `s`: under
/// NCCL, with its protocol costs, and on nodes whose switches reduce (every node type with `nvls`) with NVLS
/// on their links. `on_choice` is told each call's choice (LibraryCollective).
std::unique_ptr<comm::CollectiveAlgorithm> as_library_runs_it(scenario::CommunicationLibrary library, const scenario::Scenario& s,
                                                              std::unique_ptr<comm::CollectiveAlgorithm> algorithm,
                                                              comm::LibraryCollective::ChoiceSink on_choice = {});

/// check_scenario, then everything a run needs.
runtime::TrainingSetup resolve_scenario(const scenario::Scenario& scenario, const Registries& registries);

}  // namespace dtsim::checks
