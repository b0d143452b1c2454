#pragma once
// The collectives a run's workers exchange by, one algorithm per operation, each built once when the scenario
// is resolved: workers ask for the operation they run, and a run without it is a logic error (the scenario's
// checks refuse such runs before they start), not a null pointer to test.

#include "sim/comm/collective_algorithm.hpp"

#include <map>
#include <memory>

namespace dtsim::runtime {

class RunCollectives {
 public:
  void add(comm::Operation operation, std::unique_ptr<comm::CollectiveAlgorithm> algorithm);
  [[nodiscard]] bool has(comm::Operation operation) const { return algorithms_.contains(operation); }
  /// The algorithm for `operation`; throws std::logic_error where the run has none.
  [[nodiscard]] const comm::CollectiveAlgorithm& of(comm::Operation operation) const;
  [[nodiscard]] const comm::CollectiveAlgorithm& allreduce() const { return of(comm::Operation::allreduce); }
  [[nodiscard]] const comm::CollectiveAlgorithm& reduce_scatter() const { return of(comm::Operation::reduce_scatter); }
  [[nodiscard]] const comm::CollectiveAlgorithm& allgather() const { return of(comm::Operation::allgather); }
  /// Whether every algorithm the run has says where every rank sends (see CollectiveAlgorithm::names_every_rank), the
  /// all-to-all aside: only expert groups run it, and a device standing for its expert group records every rank's
  /// steps of it (comm::recorded_steps).
  [[nodiscard]] bool name_every_rank() const;

 private:
  std::map<comm::Operation, std::unique_ptr<comm::CollectiveAlgorithm>> algorithms_;
};

}  // namespace dtsim::runtime
