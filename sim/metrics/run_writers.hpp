#pragma once
// summary.json and metrics.csv: deterministic text (fixed precision, fixed key order), written atomically.

#include "sim/metrics/run_record.hpp"
#include "sim/metrics/timeline.hpp"
#include "sim/core/schema.hpp"
#include "sim/scenario/scenario.hpp"

#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::metrics {

/// Scenario echo (typed by `format`, the scenario schema it was read with), seed, versions, totals, final losses
/// and per-host time split.
std::string summary_json(const core::SchemaNode& format, const scenario::Scenario& scenario, const RunRecord& record);

/// One row per evaluation: sim_time_s,iteration,epoch,train_loss,train_accuracy,val_loss,val_accuracy,bytes_sent
/// (and energy_j, joules since the start, in energy runs).
std::string metrics_csv(const scenario::Scenario& scenario, const RunRecord& record);

/// One row per link direction: link,class,from,to,bandwidth_bytes_per_s,bytes,utilization (bytes over what
/// the direction could carry in the run's simulated time).
std::string links_csv(const RunRecord& record);
/// Several jobs on one cluster: each link direction's bytes summed over the `jobs`, its utilization over the
/// makespan, and how many jobs crossed it (columns as links.csv's, and `jobs`).
std::string cluster_links_csv(std::span<const RunRecord* const> jobs, double makespan_s);

/// A run's result files by name: summary.json, metrics.csv, links.csv, and trace.json where a timeline
/// was recorded.
std::vector<std::pair<std::string, std::string>> run_files(const core::SchemaNode& format, const scenario::Scenario& scenario,
                                                           const RunRecord& record, const Timeline* timeline);

/// Writes `files` as `folder`, all together or not at all: they are written into a staging folder that
/// then takes the folder's place (the previous results go as a whole).
void write_run_outputs(const std::filesystem::path& folder, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace dtsim::metrics
