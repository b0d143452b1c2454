#include "sim/metrics/throughput.hpp"

namespace dtsim::metrics {

std::optional<Throughput> throughput_over(const scenario::Scenario& scenario, const RunRecord& record,
                                          double iterations, double seconds) {
  if (record.samples_per_iteration == 0 || seconds <= 0.0) return std::nullopt;
  // Utilization by the 16-bit peak under every reduced precision, as published utilizations are counted: an
  // FP8 run's is comparable with a BF16 run's of the same speed.
  double peak = 0.0;
  for (int rank = 0; rank < scenario.cluster.workers; ++rank) peak += scenario.cluster.device_of(rank).half_peak().value();
  const double samples = static_cast<double>(record.samples_per_iteration) * iterations;
  Throughput out;
  out.samples_per_s = samples / seconds;
  out.model_flops_utilization = peak > 0.0 ? out.samples_per_s * record.model_flops_per_sample / peak : 0.0;
  if (record.tokens_per_sample > 0) out.tokens_per_s = out.samples_per_s * static_cast<double>(record.tokens_per_sample);
  return out;
}

std::optional<Throughput> throughput(const scenario::Scenario& scenario, const RunRecord& record) {
  return throughput_over(scenario, record, static_cast<double>(record.iterations), record.simulated_s);
}

}  // namespace dtsim::metrics
