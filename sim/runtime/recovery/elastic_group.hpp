#pragma once
// An elastic lock-step allreduce job (`failures.elastic: true`): a worker that fails leaves, and the others
// go on as a smaller group. At the end of every iteration the workers still in the job meet; the failures
// since the last meeting take their workers out, and the survivors renumber themselves 0..n-1 in rank order
// and allreduce among themselves from the next iteration on.

#include "sim/metrics/failure_schedule.hpp"
#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/runtime/recovery/failure_meetings.hpp"

#include <simgrid/s4u/Barrier.hpp>

#include <memory>
#include <vector>

namespace dtsim::runtime {

class ElasticGroup {
 public:
  ElasticGroup(const TrainingContext& context, int rank, Meter meter);

  [[nodiscard]] S4uTransport& transport() { return *transport_; }
  /// Workers in the job now.
  [[nodiscard]] int size() const { return static_cast<int>(current().size()); }
  /// Whether this worker records evaluations: the lowest rank still in the job.
  [[nodiscard]] bool evaluates() const { return current().front() == rank_; }
  /// At the end of iteration `iteration`: false when this worker has failed and leaves the job.
  bool end_of_iteration(std::int64_t iteration);

 private:
  void join_current_membership();
  [[nodiscard]] const std::vector<int>& current() const { return membership_->members.at(generation_); }

  const TrainingContext* context_;
  int rank_;
  Meter meter_;
  ElasticMembership* membership_;
  metrics::FailureSchedule schedule_;
  std::size_t generation_ = 0;
  std::vector<int> machines_;  ///< of the members, by their rank in the group
  std::unique_ptr<S4uTransport> transport_;
};

}  // namespace dtsim::runtime
