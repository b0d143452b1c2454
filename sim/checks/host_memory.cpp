#include "sim/checks/host_memory.hpp"

#include "sim/core/units.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace dtsim::checks {

std::optional<double> available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0.0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024.0;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::nullopt;
  return static_cast<double>(pages) * static_cast<double>(page);
}

double real_math_bytes(const scenario::Scenario& s, const models::TrainableModel& model) {
  // Per worker: its parameters, its gradient and one more vector (optimizer state or what it holds between
  // pushes); per server, its shard's copy; plus the evaluation's copy.
  constexpr double kValuesPerWorker = 3.0;
  const double servers = scenario::has_servers(s.training.architecture) ? 1.0 : 0.0;
  const double copies = kValuesPerWorker * s.cluster.workers + servers + 1.0;
  return 4.0 * static_cast<double>(model.parameter_count()) * copies;
}

void check_host_memory(const scenario::Scenario& s, const models::TrainableModel& model, std::optional<double> available,
                       core::DiagnosticSink& sink) {
  if (!available) return;
  const double need = real_math_bytes(s, model);
  if (need <= *available) return;
  const auto size = [](double bytes) { return core::format_size(core::Bytes(bytes)); };
  sink.error(s.model.kind.where, "model.kind",
             fmt::format("{} parameters of real values on each of {} workers need at least {} of memory, and this "
                         "machine has {} available",
                         model.parameter_count(), s.cluster.workers, size(need), size(*available)),
             "use a smaller model or fewer workers, or a timing-only profile (model.kind: profile:...) for a model "
             "too large to train for real");
}

}  // namespace dtsim::checks
