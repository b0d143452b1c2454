#include "sim/metrics/unmet_failures.hpp"

#include <algorithm>

namespace dtsim::metrics {

std::vector<UnmetFailure> unmet_failures(const scenario::FailureSpec& spec, const RunRecord& record) {
  std::vector<UnmetFailure> out;
  const auto met = [&](int who, double at_s, bool server) {
    return std::any_of(record.failures.begin(), record.failures.end(), [&](const FailureRecord& f) {
      return f.worker == who && f.at_s == at_s && f.server == server;
    });
  };
  for (const scenario::WorkerFailure& event : spec.events) {
    if (!met(event.worker, event.at_s, false)) out.push_back({"worker " + std::to_string(event.worker), event.at_s});
  }
  for (const scenario::ServerFailure& event : spec.server_events) {
    if (!met(event.shard, event.at_s, true)) out.push_back({"server " + std::to_string(event.shard), event.at_s});
  }
  for (const scenario::LinkFailure& event : spec.link_events) {
    // A switch's failure is met when its links go down: each named by its two ends, the switch one of them.
    const auto names = [&](const std::string& link) {
      if (!event.whole_switch) return link == event.link.value;
      for (const std::string joint : {"--", "->-"}) {
        if (link.starts_with(event.link.value + joint) || link.ends_with(joint + event.link.value)) return true;
      }
      return false;
    };
    const bool seen = std::any_of(record.link_events.begin(), record.link_events.end(), [&](const LinkEvent& e) {
      return e.down && names(e.link) && e.at_s == event.at_s;
    });
    if (!seen) out.push_back({(event.whole_switch ? "switch " : "link ") + event.link.value, event.at_s});
  }
  return out;
}

}  // namespace dtsim::metrics
