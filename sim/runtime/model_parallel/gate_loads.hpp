#pragma once
// What a mixture's learned gate did over a run trained for real under expert parallelism: the tokens each
// expert received, and how evenly each expert group's devices were loaded, in the form of the drawn routing's
// record (metrics::RoutingRecord), so that the two read alike. A draw here is one micro-batch of one expert
// group: every device of the group routes its samples' slots (samples x top_k) at once.

#include "sim/metrics/run_record.hpp"

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

namespace dtsim::runtime {

class GateLoads {
 public:
  /// `experts` in all, over expert groups of `group_size` devices.
  GateLoads(std::size_t experts, int group_size);

  /// Device `position` of expert group `group` received tokens[l] slots for its expert first + l in
  /// micro-batch `microbatch` of step `iteration`.
  void add(std::int64_t iteration, int microbatch, int group, int position, std::size_t first,
           std::span<const std::size_t> tokens);
  /// The record over every complete draw: per expert, the mean slots a draw sent it, most loaded first; the
  /// busiest device's load over the group's mean, mean and largest; the slots routed (none are dropped).
  [[nodiscard]] metrics::RoutingRecord record() const;

 private:
  struct Draw {
    std::vector<double> devices;  ///< slots each device of the group received
    int reported = 0;
  };
  std::size_t experts_;
  int group_size_;
  std::vector<double> per_expert_;  ///< slots over the run, by expert
  std::map<std::tuple<std::int64_t, int, int>, Draw> open_;
  double draws_ = 0.0;
  double max_loads_ = 0.0;
  double busiest_ = 1.0;
  double routed_ = 0.0;
};

}  // namespace dtsim::runtime
