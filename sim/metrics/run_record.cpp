#include "sim/metrics/run_record.hpp"

namespace dtsim::metrics {

double RunRecord::total_bytes_sent() const {
  double total = 0.0;
  for (const auto& host : hosts) total += host.bytes_sent;
  return total;
}

}  // namespace dtsim::metrics
