#pragma once
// Where the workers of a lock-step allreduce job meet after each iteration when workers fail, declared once
// for the run (training_run.cpp) and shared by its workers: JobRecovery rolls all of them back together,
// ElasticGroup lets the survivors go on.

#include <simgrid/s4u/Barrier.hpp>

#include <vector>

namespace dtsim::runtime {

/// What the workers of an elastic job share: who was in it, membership after membership, and where each
/// membership meets. A member appends the next membership when it is the first to find one.
struct ElasticMembership {
  std::vector<std::vector<int>> members;  ///< worker ranks, ascending, per membership
  std::vector<simgrid::s4u::BarrierPtr> meetings;  ///< one per membership, for its size
};

/// How the workers of a lock-step allreduce job meet at the end of each iteration when workers fail, decided
/// once from the scenario: not at all (no failures, or servers that recover shard by shard), all of them, to
/// roll back together, or those still in the job, to go on without the failed ones (`failures.elastic`).
enum class FailureRecovery { none, roll_back, elastic };

struct FailureMeetings {
  FailureRecovery recovery = FailureRecovery::none;
  simgrid::s4u::BarrierPtr everyone;  ///< roll_back: where every worker meets
  ElasticMembership elastic;          ///< elastic: who is still in the job
};

}  // namespace dtsim::runtime
