#include "sim/metrics/projection.hpp"

namespace dtsim::metrics {

std::optional<Projection> projection(const scenario::Scenario& scenario, const RunRecord& record) {
  if (record.projected_iterations == 0 || record.iterations == 0) return std::nullopt;
  Projection out;
  out.iterations = record.projected_iterations;
  out.simulated_iterations = record.iterations;
  const auto whole = static_cast<double>(out.iterations);
  const double share = whole / static_cast<double>(out.simulated_iterations);  // of the simulated run
  out.samples = whole * static_cast<double>(record.samples_per_iteration);
  out.tokens = out.samples * static_cast<double>(record.tokens_per_sample);
  out.iteration_s = record.simulated_s / static_cast<double>(out.simulated_iterations);
  out.total_s = whole * out.iteration_s;
  out.days = out.total_s / 86'400.0;
  out.device_hours = static_cast<double>(scenario.cluster.workers) * out.total_s / 3600.0;
  const scenario::EnergySpec& rates = scenario.energy;
  if (record.energy) {
    out.kwh = share * record.energy->total_j() / 3.6e6;
    if (rates.carbon_g_per_kwh) out.co2_kg = *out.kwh * *rates.carbon_g_per_kwh / 1000.0;
  }
  if (rates.price_per_device_hour || (out.kwh && rates.price_per_kwh)) {
    out.cost = rates.price_per_device_hour.value_or(0.0) * out.device_hours +
               (out.kwh ? rates.price_per_kwh.value_or(0.0) * *out.kwh : 0.0);
  }
  return out;
}

}  // namespace dtsim::metrics
