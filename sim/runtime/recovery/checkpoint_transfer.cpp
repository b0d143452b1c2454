#include "sim/runtime/recovery/checkpoint_transfer.hpp"

namespace dtsim::runtime {

double checkpoint_transfer_s(double bytes_per_s, std::size_t parameters, const models::Optimizer& optimizer) {
  if (bytes_per_s <= 0.0) return 0.0;
  const double values = static_cast<double>(parameters) * (1.0 + optimizer.state_per_parameter());
  return values * sizeof(float) / bytes_per_s;
}

}  // namespace dtsim::runtime
