#include "sim/app/calibration_search.hpp"

#include <cmath>

namespace dtsim::app {

void refuse_input(const std::string& where, const std::string& key, std::string message, std::string hint) {
  core::Diagnostic diagnostic;
  diagnostic.where.file = where;
  diagnostic.key = key;
  diagnostic.message = std::move(message);
  diagnostic.hint = std::move(hint);
  throw core::InputError(std::move(diagnostic));
}

void each_device(scenario::Scenario& s, const std::function<void(scenario::DeviceProfile&)>& change) {
  change(s.cluster.device);
  change(s.cluster.server_device);
  for (scenario::DeviceProfile& d : s.cluster.worker_devices) change(d);
  for (scenario::NodeGroup& group : s.cluster.nodes) change(group.device);
}

double golden_minimum(const std::function<double(double)>& f, double low, double high, double width) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = low, b = high;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = f(c), fd = f(d);
  while (b - a > width) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - ratio * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + ratio * (b - a), fd = f(d);
    }
  }
  return 0.5 * (a + b);
}

}  // namespace dtsim::app
