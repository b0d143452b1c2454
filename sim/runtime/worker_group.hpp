#pragma once
// A transport among some of a run's workers (by rank): a pipeline's stages, a stage's replicas, a tensor
// group.

#include "sim/runtime/s4u_transport.hpp"
#include "sim/runtime/training_context.hpp"

#include <memory>
#include <string>
#include <vector>

namespace dtsim::runtime {

class WorkerGroup {
 public:
  /// `members` by rank; this worker is the one at `position`.
  WorkerGroup(const TrainingContext& context, const std::string& name, std::vector<int> members, int position,
              const Meter& meter);
  [[nodiscard]] S4uTransport& operator*() const { return *transport_; }
  [[nodiscard]] S4uTransport* operator->() const { return transport_.get(); }

 private:
  std::vector<int> members_;
  std::vector<int> machines_;
  std::unique_ptr<S4uTransport> transport_;
};

}  // namespace dtsim::runtime
