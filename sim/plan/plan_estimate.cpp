#include "sim/plan/plan_estimate.hpp"

#include "models/device_share.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace dtsim::planner {
namespace {

/// The route's slowest link: its id and bandwidth.
std::pair<std::size_t, double> bottleneck(const topology::TopologyGraph& graph, const topology::Route& route) {
  std::pair<std::size_t, double> out{0, std::numeric_limits<double>::infinity()};
  for (const topology::Hop& hop : route) {
    const double bandwidth = graph.link(hop.link).bandwidth.value();
    if (bandwidth < out.second) out = {hop.link, bandwidth};
  }
  return out;
}

/// A link in one direction: links are split-duplex, the two ways carrying their flows apart.
using LinkWay = std::pair<std::size_t, bool>;

LinkWay way_of(const topology::Hop& hop) { return {hop.link, hop.forward}; }

/// A ring over `size` ranks moving `bytes` from each, in `rounds_per_rank` x (size - 1) rounds of bytes / size
/// (2 for an allreduce, 1 for a reduce-scatter or an all-gather), `calls` times.
double ring_seconds(double bytes, int size, double rounds_per_rank, double calls, double latency, double bandwidth) {
  if (size < 2 || bytes <= 0.0) return 0.0;
  const double rounds = rounds_per_rank * (size - 1);
  return rounds * (calls * latency + bytes / size / bandwidth);
}

}  // namespace

SplitEstimator::SplitEstimator(const models::ModelProfile& profile, const topology::TopologyGraph& graph)
    : profile_(profile), graph_(graph), routes_(graph) {}

SplitEstimator::Hop SplitEstimator::slowest_hop(const std::vector<int>& group, const scenario::Scenario& s) const {
  if (group.size() < 2) return {0.0, std::numeric_limits<double>::infinity()};
  if (const auto found = hops_.find(group); found != hops_.end()) return found->second;
  const auto workers = graph_.workers();
  const auto machines = graph_.worker_machines();
  const int ranks = static_cast<int>(workers.size());
  const int per_node = s.cluster.nodes.empty() ? 1 : s.cluster.nodes.front().devices;
  Hop worst{0.0, std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < group.size(); ++i) {
    const int a = group[i];
    const int b = group[(i + 1) % group.size()];
    const topology::Route& hop_route = routes_.route(workers[a], workers[b]);
    double shared = bottleneck(graph_, hop_route).second;
    if (machines[a] != machines[b]) {
      // Every device of a's node sends to its own peer at the same offset at once, and each link of a's route is
      // shared by those of their routes that cross it. The hop goes at the pace of its most shared link, which
      // need not be its slowest: a device's own NIC may be the first of several links as fast, and a fabric
      // link after it carry the flows of the whole node (a data-parallel ring of two DGX A100 nodes ran 1.7x
      // the estimate that shared only the first slowest link).
      std::map<LinkWay, int> crossing;
      for (int q = std::max(0, a - per_node); q <= std::min(ranks - 1, a + per_node); ++q) {
        const int peer = q + (b - a);
        if (machines[q] != machines[a] || peer < 0 || peer >= ranks || machines[peer] == machines[q]) continue;
        for (const topology::Hop& hop : routes_.route(workers[q], workers[peer])) ++crossing[way_of(hop)];
      }
      shared = std::numeric_limits<double>::infinity();
      for (const topology::Hop& hop : hop_route) {
        shared = std::min(shared, graph_.link(hop.link).bandwidth.value() / std::max(1, crossing[way_of(hop)]));
      }
    }
    worst.bandwidth = std::min(worst.bandwidth, shared);
    worst.latency = std::max(worst.latency, routes_.latency(workers[a], workers[b]));
  }
  return hops_.emplace(group, worst).first->second;
}

double SplitEstimator::all_to_all_seconds_per_byte(const scenario::Scenario& s) const {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  if (plan.expert < 2) return 0.0;
  const auto workers = graph_.workers();
  const auto machines = graph_.worker_machines();
  const int ranks = static_cast<int>(workers.size());
  const int per_node = s.cluster.nodes.empty() ? 1 : s.cluster.nodes.front().devices;
  // Every expert group with a member on rank 0's machine (its first ranks) exchanges at once: under tensor
  // parallelism a node holds members of several.
  std::vector<int> key;
  std::vector<std::vector<int>> groups;
  for (int q = 0; q < std::min(ranks, per_node); ++q) {
    // The groups partition the ranks: a member of one already listed brings no other.
    if (machines[q] != machines[0] || std::find(key.begin(), key.end(), q) != key.end()) continue;
    std::vector<int> group = scenario::group_along(plan, q, scenario::ParallelAxis::Expert);
    key.insert(key.end(), group.begin(), group.end());
    groups.push_back(std::move(group));
  }
  if (const auto found = all_to_alls_.find(key); found != all_to_alls_.end()) return found->second;
  // Each flow carries 1/e of its sender's bytes: the links out of the machine carry every flow of its members to
  // members elsewhere.
  std::map<LinkWay, int> leaving;
  for (const std::vector<int>& group : groups) {
    for (const int q : group) {
      if (machines[q] != machines[0]) continue;
      for (const int peer : group) {
        if (machines[peer] == machines[0]) continue;
        for (const topology::Hop& hop : routes_.route(workers[q], workers[peer])) ++leaving[way_of(hop)];
      }
    }
  }
  const double share = 1.0 / plan.expert;
  double local = 0.0;
  double remote = 0.0;
  const std::vector<int> own = scenario::group_along(plan, 0, scenario::ParallelAxis::Expert);
  int local_peers = 0;
  double local_bandwidth = std::numeric_limits<double>::infinity();
  for (const int peer : own) {
    if (peer == 0) continue;
    const topology::Route& route = routes_.route(workers[0], workers[peer]);
    if (machines[peer] == machines[0]) {
      ++local_peers;
      local_bandwidth = std::min(local_bandwidth, bottleneck(graph_, route).second);
      continue;
    }
    for (const topology::Hop& hop : route) {
      remote = std::max(remote, leaving[way_of(hop)] * share / graph_.link(hop.link).bandwidth.value());
    }
  }
  // A device's sends to its own machine's members leave through one port: their bytes add up on it.
  if (local_peers > 0) local = local_peers * share / local_bandwidth;
  return all_to_alls_.emplace(std::move(key), std::max(local, remote)).first->second;
}

const std::vector<SplitEstimator::StageWork>& SplitEstimator::stage_work(const scenario::Scenario& s) const {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  const int chunks = plan.pipeline * (plan.pipeline > 1 ? plan.virtual_stages : 1);
  const int microbatch = std::max(1, s.training.batch_per_worker / plan.microbatches);
  const scenario::DeviceProfile& device = s.cluster.device_of(0);
  // The experts' own grid (0 where expert_tensor is not declared) changes what each device's routed layers hold.
  const int expert_grid = plan.expert_tensor_declared ? plan.expert_tensor : 0;
  const auto key = std::make_tuple(plan.tensor, chunks, plan.context, plan.expert, expert_grid,
                                   static_cast<int>(s.training.recomputation), microbatch,
                                   device.name + "/" + std::string(scenario::to_string(device.precision)));
  if (const auto found = work_.find(key); found != work_.end()) return found->second;
  const std::vector<std::size_t> cuts = models::split_into_stages(profile_, chunks, plan.stage_split);
  const models::DeviceShare share = scenario::device_share_of(s.training);
  std::vector<StageWork> out;
  for (int c = 0; c < chunks; ++c) {
    const models::ModelProfile layers = models::device_share(
        models::stage_profile(profile_, cuts[static_cast<std::size_t>(c)], cuts[static_cast<std::size_t>(c) + 1]), share);
    StageWork work;
    double forward = 0.0;
    double total = 0.0;
    double weights = 0.0;
    for (const models::LayerProfile& layer : layers.layers) {
      work.seconds += compute::layer_seconds(layer, microbatch, device);
      forward += layer.forward_flops;
      total += layer.forward_flops + layer.backward_flops;
      weights += models::weight_gradient_flops(layer);
      // On the experts' own grid a routed layer's values are its expert-tensor group's, not the tensor group's.
      if (share.expert_grid && layer.routed()) {
        work.expert_tensor_values += layer.tensor_sum_elements * microbatch;
      } else {
        work.tensor_values += layer.tensor_sum_elements * microbatch;
      }
      work.context_values += layer.context_exchange_elements * microbatch;
      work.expert_values += layer.exchange_elements * microbatch;
      work.parameters += layer.parameters;
    }
    work.forward_share = total > 0.0 ? forward / total : 0.5;
    work.weight_share = total > 0.0 ? weights / total : 0.0;
    out.push_back(work);
  }
  return work_.emplace(key, std::move(out)).first->second;
}

SplitEstimate SplitEstimator::estimate(const scenario::Scenario& s, bool overlap) const {
  const scenario::ParallelismSpec& plan = s.training.parallelism;
  using Axis = scenario::ParallelAxis;
  const std::vector<StageWork>& work = stage_work(s);
  const int chunks = plan.pipeline > 1 ? plan.virtual_stages : 1;
  const double passes = s.training.recomputation == models::Recomputation::Full ? 3.0 : 2.0;
  const double activation_bytes = s.training.wire.activations;
  const Hop tensor = slowest_hop(scenario::group_along(plan, 0, Axis::Tensor), s);
  const Hop context = slowest_hop(scenario::group_along(plan, 0, Axis::Context), s);
  const Hop expert_tensor = slowest_hop(scenario::group_along(plan, 0, Axis::ExpertTensor), s);
  const double expert_s_per_byte = all_to_all_seconds_per_byte(s);
  const Hop stages = slowest_hop(scenario::group_along(plan, 0, Axis::Pipeline), s);
  // Per micro-batch, on the slowest device (its chunks' work together).
  double slowest = 0.0;
  double exchange = 0.0;
  double forward = 0.0;
  double weights = 0.0;
  double parameters = 0.0;
  for (int d = 0; d < plan.pipeline; ++d) {
    double compute = 0.0;
    double exchanged = 0.0;
    double device_forward = 0.0;
    double device_weights = 0.0;
    double device_parameters = 0.0;
    for (int c = 0; c < chunks; ++c) {
      const StageWork& w = work[static_cast<std::size_t>(c * plan.pipeline + d)];
      compute += w.seconds;
      device_forward += w.seconds * w.forward_share;
      device_weights += w.seconds * w.weight_share;
      device_parameters += w.parameters;
      // The tensor group sums its hidden state once per pass over it (three passes under full recomputation).
      exchanged += passes * ring_seconds(w.tensor_values * activation_bytes, plan.tensor, 2.0, 1.0, tensor.latency, tensor.bandwidth);
      exchanged += passes * w.context_values * activation_bytes * (plan.context - 1) / std::max(1, plan.context) / context.bandwidth;
      // Each pass sends the routed tokens to their experts (at the dispatch's precision) and back.
      exchanged += passes * w.expert_values * (s.training.wire.dispatch + activation_bytes) * expert_s_per_byte;
      // Each routed layer's gather or reduce-scatter over its expert-tensor group, once per pass over it (a column
      // split gathers forward and reduce-scatters backward, a row split the other way round).
      exchanged += passes * ring_seconds(w.expert_tensor_values * activation_bytes, plan.expert_tensor, 1.0, 1.0,
                                         expert_tensor.latency, expert_tensor.bandwidth);
    }
    if (compute + exchanged > slowest + exchange) {
      slowest = compute;
      exchange = exchanged;
      forward = device_forward;
      weights = device_weights;
      parameters = device_parameters;
    }
  }
  SplitEstimate out;
  const double m = plan.microbatches;
  out.compute_s = m * slowest;
  out.exchange_s = m * exchange;
  if (plan.pipeline > 1) {
    const double microbatch = std::max(1, s.training.batch_per_worker / plan.microbatches);
    const double hidden = microbatch * profile_.shape.sequence * profile_.shape.width / plan.context /
                          (plan.sequence_parallel ? plan.tensor : 1) * activation_bytes;
    // In the steady state a stage's messages move while it computes; filling and draining the pipeline crosses
    // every boundary between its chunks once each way.
    out.pipeline_s = 2.0 * (plan.pipeline * chunks - 1) * (stages.latency + hidden / stages.bandwidth);
    const double per_microbatch = slowest + exchange;
    const double bubble = models::bubble_closed_form(plan.schedule, plan.pipeline, plan.microbatches, chunks, forward,
                                                     slowest - forward - weights, weights);
    out.bubble_s = bubble * m * per_microbatch;
  }
  // The replicas' gradient reduction: a reduce-scatter and an all-gather (an allreduce), ZeRO 3 gathering the
  // parameters for the backward pass once more.
  const std::vector<int> replicas = scenario::replica_group(plan, 0);
  const Hop data = slowest_hop(replicas, s);
  const double rounds = plan.zero == 3 ? 3.0 : 2.0;
  out.gradients_s = ring_seconds(parameters * s.training.wire.gradients, static_cast<int>(replicas.size()), rounds, 1.0,
                                 data.latency, data.bandwidth);
  if (overlap) out.gradients_s = std::max(0.0, out.gradients_s - (slowest - forward));
  out.iteration_s = out.compute_s + out.exchange_s + out.pipeline_s + out.bubble_s + out.gradients_s;
  return out;
}

}  // namespace dtsim::planner
