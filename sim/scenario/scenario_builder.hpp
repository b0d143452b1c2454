#pragma once
// Turns a validated scenario document into the Scenario structs, checking what one key alone cannot
// show: contradictions between keys (batch given twice, more workers than devices, a custom topology
// in pieces).

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/config_node.hpp"
#include "sim/scenario/registries.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>

namespace dtsim::scenario {

/// `document` must have passed validate_scenario_document, against the schema of `registries`, without errors.
/// Contradictions go to `sink`.
/// `topology_workers`: a job's (ClusterSpec::topology_workers), 0 otherwise. `name_key`: the key the document's
/// name was written at, for messages: `name`, or a job's `jobs[i].name`.
Scenario build_scenario(const ConfigNode& document, const Registries& registries, const std::string& source,
                        const std::string& sweep_point, core::DiagnosticSink& sink, int topology_workers = 0,
                        const std::string& name_key = "name");

/// Writes into `document` the defaults that build_scenario resolved from other sections (`model.attention:
/// auto`, by the devices), so that `dtsim explain` and summary.json's scenario echo show what ran.
void write_resolved_defaults(const Scenario& s, ConfigNode& document);

/// What `s`'s topology is built for besides its section: workers, seed, servers and nodes.
topologies::TopologyContext topology_context(const Scenario& s);

/// `s`'s network graph, built by its topology's entry in `registry`.
topology::TopologyGraph build_topology(const Scenario& s, const topologies::TopologyRegistry& registry);

}  // namespace dtsim::scenario
