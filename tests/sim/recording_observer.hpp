#pragma once
// A RunObserver that keeps what it is told, for tests to check against references.

#include "sim/runtime/observe/run_observer.hpp"

#include <cstdint>
#include <vector>

namespace dtsim::testing {

struct RecordingObserver final : runtime::RunObserver {
  struct Push {
    int worker = 0;
    double relative = 0.0;
    std::int64_t delay = 0;
    bool last = false;
  };
  struct AppliedUpdate {
    std::int64_t staleness = 0;
    double rate_factor = 0.0;
  };

  bool measure_updates = false;  ///< ask for on_update_measured
  std::vector<Push> pushes;
  std::vector<AppliedUpdate> applied;
  std::vector<float> final_parameters;

  void on_push(int worker, double relative, std::int64_t delay, bool last) override {
    pushes.push_back({worker, relative, delay, last});
  }
  void on_update_measured(std::int64_t staleness, double rate_factor) override {
    applied.push_back({staleness, rate_factor});
  }
  [[nodiscard]] bool measures_updates() const override { return measure_updates; }
  void on_final_parameters(std::span<const float> parameters) override {
    final_parameters.assign(parameters.begin(), parameters.end());
  }
};

}  // namespace dtsim::testing
