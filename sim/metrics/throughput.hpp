#pragma once
// How much of the cluster a timing-only run used: samples per simulated second, and model FLOPs
// utilization (the model's training FLOPs done per second over the workers' summed peak, each in the
// precision it computes in), as published runs report it.

#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>

namespace dtsim::metrics {

struct Throughput {
  double samples_per_s = 0.0;
  double model_flops_utilization = 0.0;  ///< a fraction of the peak
  std::optional<double> tokens_per_s;    ///< transformer profiles: samples_per_s times the sequence
};

/// Empty for runs that trained for real (their models' FLOPs are not a layer table's) or took no time.
std::optional<Throughput> throughput(const scenario::Scenario& scenario, const RunRecord& record);
/// The same rates over `iterations` iterations that took `seconds` (one iteration of a timing-only run).
std::optional<Throughput> throughput_over(const scenario::Scenario& scenario, const RunRecord& record,
                                          double iterations, double seconds);

}  // namespace dtsim::metrics
