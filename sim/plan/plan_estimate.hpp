#pragma once
// The fast estimate `dtsim plan` ranks candidate splits by, in microseconds each where a simulation takes
// seconds: a stage's compute per micro-batch from the device cost model (each layer's roofline, as a run
// charges it), the tensor group's sums, the context group's key-value exchanges, the expert group's all-to-alls
// and the expert-tensor group's gathers and reduce-scatters as ring or pairwise closed forms on the bottleneck of
// their routes (each flow alone on its route, as `network_model: closed_form` times them), the stage-to-stage
// messages, the schedule's bubble
// (models::bubble_closed_form), and the replicas' gradient reduction after the pipeline drains (ZeRO 3 also
// gathering the parameters twice). A node's devices share every link their groups' routes cross between nodes
// (the hop moves at the pace of its most shared link); an all-to-all's parts for the sender's own machine and
// for the others move side by side, each over its own links. What it
// leaves out, the simulation of the best candidates has: contention between groups, overlap of gradient
// buckets with the backward pass, routing imbalance, the communication library's protocols.

#include "models/model_profile.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_graph.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace dtsim::planner {

/// Seconds of one iteration as estimated, and its parts (each as the iteration's critical path sees it).
struct SplitEstimate {
  double iteration_s = 0.0;
  double compute_s = 0.0;    ///< the slowest stage's passes over every micro-batch
  double exchange_s = 0.0;   ///< tensor sums, context and expert exchanges inside those passes
  double pipeline_s = 0.0;   ///< stage-to-stage messages while the pipeline fills and drains
  double bubble_s = 0.0;     ///< the schedule's fill and drain
  double gradients_s = 0.0;  ///< the replicas' reduction (and ZeRO's gathers) after the last backward pass
};

class SplitEstimator {
 public:
  /// `graph` (the topology of the scenarios to estimate, one device per worker rank) must outlive it.
  SplitEstimator(const models::ModelProfile& profile, const topology::TopologyGraph& graph);

  /// The estimate of `s`, a scenario over the graph's workers split by its training.parallelism. `overlap`: the
  /// gradients' reduction runs during the last micro-batch's backward pass, only what outlasts it adding.
  [[nodiscard]] SplitEstimate estimate(const scenario::Scenario& s, bool overlap = false) const;

  /// Seconds per byte of rank 0's share of an all-to-all over its expert group in `s` (each member sending every
  /// other an equal part at once): the part for its own machine's members over their route, the rest over the
  /// links that every expert group's members on its machine cross toward other machines at the same time, the two
  /// parts moving side by side. Zero without expert parallelism.
  [[nodiscard]] double all_to_all_seconds_per_byte(const scenario::Scenario& s) const;

 private:
  /// A group's slowest hop between consecutive members: the latency and the bandwidth of its route, divided
  /// among the devices of a node that cross nodes at once through its NICs.
  struct Hop {
    double latency = 0.0;
    double bandwidth = 0.0;
  };
  /// One pass of a stage's share of the model over a micro-batch, and what it exchanges.
  struct StageWork {
    double seconds = 0.0;               ///< forward and backward compute
    double forward_share = 0.0;         ///< of which the forward pass
    double weight_share = 0.0;          ///< of which the weights' gradient (zero bubble's W pass)
    double tensor_values = 0.0;         ///< values summed over the tensor group (forward and backward)
    double expert_tensor_values = 0.0;  ///< routed copies gathered or summed over the expert-tensor group
    double context_values = 0.0;        ///< keys and values brought by the context group
    double expert_values = 0.0;         ///< tokens sent to other experts' devices, every all-to-all together
    double parameters = 0.0;
  };
  [[nodiscard]] Hop slowest_hop(const std::vector<int>& group, const scenario::Scenario& s) const;
  [[nodiscard]] const std::vector<StageWork>& stage_work(const scenario::Scenario& s) const;

  const models::ModelProfile& profile_;
  const topology::TopologyGraph& graph_;
  mutable topology::RoutingTable routes_;
  mutable std::map<std::vector<int>, Hop> hops_;
  /// By the expert groups of rank 0's machine, concatenated.
  mutable std::map<std::vector<int>, double> all_to_alls_;
  /// By tensor, chunks, context, expert, expert tensor (0: not declared), recomputation, micro-batch size and
  /// device: many candidates differ in their ZeRO stage and schedule only.
  mutable std::map<std::tuple<int, int, int, int, int, int, int, std::string>, std::vector<StageWork>> work_;
};

}  // namespace dtsim::planner
