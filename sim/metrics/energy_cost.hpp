#pragma once
// What a run's energy costs where the scenario gives the rates: CO2 from the grid's carbon intensity, and
// money from a price per kWh and per device-hour.

#include "sim/metrics/run_record.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>

namespace dtsim::metrics {

struct EnergyCost {
  double kwh = 0.0;
  std::optional<double> co2_kg;
  std::optional<double> cost;  ///< in the scenario's currency
};

/// Empty for runs without energy accounting.
std::optional<EnergyCost> energy_cost(const scenario::Scenario& scenario, const RunRecord& record);

}  // namespace dtsim::metrics
