#pragma once
// Several jobs of a cluster run under `network_model: analytical` sharing the cluster's links. Each job's
// analytical network times a phase or a message as if it were alone (analytical_network.hpp), then begins it
// here as a transfer: what it moves on each link direction and when it would end alone. While transfers of
// two jobs or more cross the same directions, each moves its bytes at the rate topology::shared_rates gives it
// (its latency is not stretched), so that it ends later; rates are shared again whenever a transfer begins or
// ends, and the waiters of a transfer whose pace changed are woken to wait for its new end.
//
// A transfer that never meets another job keeps its alone end to the last bit: a job whose links no other job
// uses runs as it does alone.

#include "sim/topology/activity_sharing.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <map>
#include <memory>
#include <vector>

namespace dtsim::runtime {

/// What a transfer moves on a link direction: its bytes, and how many of its flows cross it at once.
struct DirectionLoad {
  double bytes = 0.0;
  double flows = 0.0;
};
/// By link direction (topology::DirectionShare's numbering).
using DirectionLoads = std::map<std::size_t, DirectionLoad>;

/// The number of a hop's direction, as topology::DirectionShare counts them.
inline std::size_t direction_of(const topology::Hop& hop) { return hop.link * 2 + (hop.forward ? 0 : 1); }

class LinkSharing {
 public:
  /// `graph` (the cluster's: its links' bandwidths) must outlive it.
  explicit LinkSharing(const topology::TopologyGraph& graph) : graph_(&graph) {}

  /// A transfer in flight. Its time is its alone time until it meets another job; from then on, `pace` of it
  /// passes per second, counted from `anchor_s`, when it had gone as far as it would have alone by `anchor_alone_s`.
  struct Transfer {
    int job = 0;
    double alone_end = 0.0;
    double latency = 0.0;  ///< the fraction of its alone time that is latency
    std::vector<topology::DirectionShare> shares;
    double weight = 1.0;      ///< topology::TransferLoad's
    std::size_t cadence = 0;  ///< topology::TransferLoad's
    double begun_s = 0.0;     ///< when it began
    double pace = 1.0;
    bool disturbed = false;
    double anchor_s = 0.0;
    double anchor_alone_s = 0.0;
    bool ended = false;
    simgrid::s4u::ConditionVariablePtr changed = simgrid::s4u::ConditionVariable::create();

    /// When it gets as far as it would have alone by `alone_s`.
    [[nodiscard]] double time_of(double alone_s) const {
      return disturbed ? anchor_s + (alone_s - anchor_alone_s) / pace : alone_s;
    }
    /// How far it has gone at `at_s`, in its alone time.
    [[nodiscard]] double alone_time_at(double at_s) const {
      return disturbed ? anchor_alone_s + (at_s - anchor_s) * pace : at_s;
    }
  };

  /// Begins, at the engine's clock, a transfer of job `job` that alone would end at `alone_end`, `latency_s` of it
  /// latency, moving `loads` on link directions. Null when it moves no bytes past its latency: it then ends
  /// when it would alone.
  std::shared_ptr<Transfer> begin(int job, double alone_end, double latency_s, const DirectionLoads& loads);

  /// Blocks the calling actor until `transfer` has gone as far as it would have alone by `alone_s`; returns then.
  double wait(const std::shared_ptr<Transfer>& transfer, double alone_s);

 private:
  /// Drops `transfer`, ended at `now`, and shares the links again.
  void retire(const std::shared_ptr<Transfer>& transfer, double now);
  /// Transfers whose ends have passed by `now`, whose last waiters are gone (a job's actors ended otherwise).
  void retire_ended(double now);
  /// Each transfer's pace from the ones in flight; those whose pace changed start counting from `now`.
  void reshare(double now);

  const topology::TopologyGraph* graph_;
  std::vector<std::shared_ptr<Transfer>> in_flight_;  ///< in the order begun
  std::size_t cadences_ = 0;                          ///< the last cadence given
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
};

}  // namespace dtsim::runtime
