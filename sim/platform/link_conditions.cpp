#include "sim/platform/link_conditions.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim::platform {

double bandwidth_under_loss(double bandwidth, double latency_s, double loss, int streams) {
  if (loss <= 0.0 || latency_s <= 0.0) return bandwidth;
  constexpr double segment_bytes = 1460.0;
  const double flow = 1.22 * segment_bytes / (2.0 * latency_s * std::sqrt(loss));
  return std::min(bandwidth, static_cast<double>(streams) * flow);
}

}  // namespace dtsim::platform
