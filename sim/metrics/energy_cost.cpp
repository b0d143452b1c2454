#include "sim/metrics/energy_cost.hpp"

namespace dtsim::metrics {

std::optional<EnergyCost> energy_cost(const scenario::Scenario& scenario, const RunRecord& record) {
  if (!record.energy) return std::nullopt;
  EnergyCost out;
  out.kwh = record.energy->total_j() / 3.6e6;
  const scenario::EnergySpec& spec = scenario.energy;
  if (spec.carbon_g_per_kwh) out.co2_kg = out.kwh * *spec.carbon_g_per_kwh / 1000.0;
  if (spec.price_per_kwh || spec.price_per_device_hour) {
    const double device_hours = static_cast<double>(scenario.cluster.workers) * record.simulated_s / 3600.0;
    out.cost = spec.price_per_kwh.value_or(0.0) * out.kwh + spec.price_per_device_hour.value_or(0.0) * device_hours;
  }
  return out;
}

}  // namespace dtsim::metrics
