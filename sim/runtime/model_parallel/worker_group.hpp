#pragma once
// A transport among some of a run's workers (by rank): a pipeline's stages, a stage's replicas, a tensor
// group.

#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <memory>
#include <optional>
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
  /// This worker stands for every rank of `groups`, groups of this one's kind (its own first), with `entrants` - 1
  /// other workers standing for some of them (see S4uTransport::stand_for).
  void stand_for(std::vector<std::vector<int>> groups, int entrants = 1) {
    stood_for_ = std::move(groups);
    transport_->stand_for(stood_for_, entrants);
  }

 private:
  std::vector<int> members_;
  std::vector<std::vector<int>> stood_for_;
  std::vector<int> machines_;
  std::unique_ptr<S4uTransport> transport_;
};

/// Where a stage's replica groups meet under the analytical network (channels "<channels>/<stage>"): the
/// replicas of every tensor share of a stage reach each collective together (their tensor groups keep them
/// in step), so their phases are timed as one, sharing the links as they do message by message.
AnalyticalMeeting replicas_meeting(const scenario::ParallelismSpec& plan, const scenario::ParallelCoordinates& at,
                              const std::string& channels);

/// A model-parallel device's groups (by training.parallelism.placement): its replica's pipeline stages, the
/// replicas of its share, and its tensor group; under expert parallelism, its expert group; under expert tensor
/// parallelism, its expert-tensor group; and where the routed experts are held apart from the dense layers
/// (scenario::experts_apart), the devices holding the same experts.
struct ParallelGroups {
  ParallelGroups(const TrainingContext& context, int rank, const Meter& meter);

  WorkerGroup line;      ///< the stages of its replica, at its stage
  WorkerGroup replicas;  ///< the devices holding the same share of the dense layers, at its replica index
  WorkerGroup tensor;    ///< its tensor group, at its tensor rank
  std::optional<WorkerGroup> sequence;         ///< its context group, splitting its sequences, at its context rank
  std::optional<WorkerGroup> experts;          ///< the replicas exchanging tokens, at its expert rank
  /// The replicas splitting each routed expert's matrices (their traffic the tensor group's), at its rank there.
  std::optional<WorkerGroup> expert_tensor;
  /// The devices holding the same experts: the replicas of its expert share, and its tensor group's devices too
  /// on the experts' own grid.
  std::optional<WorkerGroup> expert_replicas;
};

/// Where the analytical network times a stage's groups of devices holding the same experts together (channels
/// "<channels>/<stage>"): every such group of a stage reaches its collectives at the same moments.
AnalyticalMeeting expert_replicas_meeting(const scenario::ParallelismSpec& plan, const scenario::ParallelCoordinates& at,
                                          const std::string& channels);

/// ZeRO's gather of `elements` partitioned parameters over a data-parallel group, its time labelled as ZeRO's
/// traffic, apart from the gradients' reduction.
void gather_parameters(const TrainingSetup& setup, S4uTransport& replicas, std::size_t elements);

}  // namespace dtsim::runtime
