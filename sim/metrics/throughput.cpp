#include "sim/metrics/throughput.hpp"

namespace dtsim::metrics {

std::optional<Throughput> throughput(const scenario::Scenario& scenario, const RunRecord& record) {
  if (record.samples_per_iteration == 0 || record.simulated_s <= 0.0) return std::nullopt;
  double peak = 0.0;
  for (int rank = 0; rank < scenario.cluster.workers; ++rank) peak += scenario.cluster.device_of(rank).peak().value();
  const double samples = static_cast<double>(record.samples_per_iteration) * static_cast<double>(record.iterations);
  Throughput out;
  out.samples_per_s = samples / record.simulated_s;
  out.model_flops_utilization = peak > 0.0 ? out.samples_per_s * record.model_flops_per_sample / peak : 0.0;
  if (record.tokens_per_sample > 0) out.tokens_per_s = out.samples_per_s * static_cast<double>(record.tokens_per_sample);
  return out;
}

}  // namespace dtsim::metrics
