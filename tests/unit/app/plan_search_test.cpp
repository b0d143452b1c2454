// dtsim plan's search: the screen refuses exactly what `dtsim run` refuses, every discard says why, the
// estimate is the closed form it documents where only compute (or only the gradients' ring) counts, and the choices
// its flags (and Python's keywords) name are read alike.

#include "sim/app/plan_command.hpp"
#include "sim/plan/plan_candidates.hpp"
#include "sim/plan/plan_estimate.hpp"
#include "sim/plan/plan_search.hpp"

#include "models/device_share.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/checks/registries.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/parallel_layout.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/topology/routing.hpp"

#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace dtsim::app {
namespace {

/// GPT-2 XL (48 layers, 25 heads, 1.56B parameters) on one DGX-1's eight 32 GiB V100s, in batches of 64
/// sequences: held whole with Adam it needs 25 GiB before activations, so memory (a few whole micro-batches of
/// 64 sequences), the heads (no tensor degree but 1 divides 25) and ZeRO's rules all discard some splits.
const std::string kPlanned = R"(name: planned
cluster:
  workers: 8
  device: {name: v100, precision: mixed}
  nodes:
    - {type: dgx1, count: 1}
topology: {kind: hierarchical, fabric: fat_tree, arity: 4, network_model: analytical, link: {bandwidth: "100Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_xl"}
training:
  batch: {global: 64}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";

scenario::Scenario with_point(const std::string& text, const std::string& point) {
  return scenario::read_scenario_document_text(test::scenario_format(), text + "sweep:\n  points:\n    - " + point + "\n",
                                               "planned.yaml")
      .points.front();
}

models::ModelProfile profile_of(const scenario::Scenario& s, const checks::Registries& registries) {
  return registries.models.find(s.model.kind.value).factory.profile(core::View(&s.model.section, "model"));
}

TEST(PlanSearch, TheScreenRefusesExactlyWhatARunOfTheCandidateRefuses) {
  const checks::Registries registries = checks::make_builtin_registries();
  const scenario::Scenario base = with_point(kPlanned, "{training.parallelism.data: 8}");
  const models::ModelProfile profile = profile_of(base, registries);
  std::int64_t undivided = 0;
  planner::PlanSpace space;
  space.recomputation = models::Recomputation::Selective;
  const std::vector<planner::PlanCandidate> candidates =
      planner::enumerate_candidates(space, 8, profile.shape, 64, undivided);
  ASSERT_GT(candidates.size(), 100U);
  scenario::Scenario screened = base;
  const std::vector<analysis::PlanRow> rows =
      planner::screen_candidates(candidates, 64, screened, profile, registries, {});
  std::map<std::string, const analysis::PlanRow*> by_split;
  for (const analysis::PlanRow& row : rows) by_split[row.split] = &row;
  std::map<std::string, int> verdicts;
  // Every third candidate, read from its own scenario text and checked as `dtsim run` checks it.
  for (std::size_t i = 0; i < candidates.size(); i += 3) {
    const planner::PlanCandidate& c = candidates[i];
    std::string refused;
    try {
      checks::check_scenario(with_point(kPlanned, planner::sweep_point_yaml(c, 64, base)), registries);
    } catch (const core::InputError& error) {
      refused = error.what();
    }
    const analysis::PlanRow& row = *by_split.at(c.label());
    EXPECT_EQ(refused.empty(), row.discarded.empty()) << c.label() << ": " << refused << " / " << row.detail;
    if (!refused.empty()) {
      EXPECT_NE(refused.find(row.detail), std::string::npos) << c.label() << ": " << refused;
    }
    ++verdicts[row.discarded.empty() ? "fits" : row.discarded];
  }
  // The case exercises every kind of verdict.
  EXPECT_GT(verdicts["fits"], 10);
  EXPECT_GT(verdicts["memory"], 3);
  EXPECT_GT(verdicts["training.parallelism.tensor"], 3);
}

TEST(PlanSearch, EveryDiscardedCandidateSaysWhyAndTheCountsAddUp) {
  const checks::Registries registries = checks::make_builtin_registries();
  scenario::Scenario s = with_point(kPlanned, "{training.parallelism.data: 8}");
  const models::ModelProfile profile = profile_of(s, registries);
  std::int64_t undivided = 0;
  const std::vector<planner::PlanCandidate> candidates =
      planner::enumerate_candidates({}, 8, profile.shape, 64, undivided);
  const std::vector<analysis::PlanRow> rows = planner::screen_candidates(candidates, 64, s, profile, registries, {});
  ASSERT_EQ(rows.size(), candidates.size());
  std::int64_t discarded = 0;
  bool fitting_part = true;
  for (const analysis::PlanRow& row : rows) {
    if (row.discarded.empty()) {
      EXPECT_TRUE(fitting_part) << "the fitting come first";
      EXPECT_GT(row.estimate_s, 0.0) << row.split;
      continue;
    }
    fitting_part = false;
    ++discarded;
    EXPECT_FALSE(row.detail.empty()) << row.split;
  }
  std::int64_t counted = 0;
  for (const analysis::PlanDiscard& d : analysis::count_discards(rows, undivided, 64)) counted += d.count;
  EXPECT_EQ(counted, discarded + undivided);
  EXPECT_GT(discarded, 0);
}

/// Mixtral 8x7B's 32 blocks: the interleaved schedule is tried with every chunk count that cuts a stage's blocks
/// evenly, one block a chunk included (8 on 4 stages ran faster than the 2 and 4 the search used to stop at).
TEST(PlanCandidates, TriesEveryVirtualStageCountThatCutsAStagesBlocksEvenly) {
  models::TransformerShape shape;
  shape.layers = 32;
  shape.experts = 8;
  planner::PlanSpace space;
  space.degree(scenario::ParallelAxis::Tensor) = 1;
  space.degree(scenario::ParallelAxis::Expert) = 1;
  space.zero = 1;
  space.recomputation = models::Recomputation::Selective;
  space.schedule = models::PipelineSchedule::Interleaved;
  using A = scenario::ParallelAxis;
  space.placement = std::vector<A>{A::Tensor, A::Pipeline, A::Data};
  std::int64_t undivided = 0;
  std::map<int, std::set<int>> tried;
  for (const planner::PlanCandidate& c : planner::enumerate_candidates(space, 64, shape, 64, undivided)) {
    const int pipeline = c.degree(scenario::ParallelAxis::Pipeline);
    if (pipeline > 1) tried[pipeline].insert(c.virtual_stages);
  }
  // 32 and 64 stages: a block or less each, nothing to interleave.
  const std::map<int, std::set<int>> expected{{2, {2, 4, 8, 16}}, {4, {2, 4, 8}}, {8, {2, 4}}, {16, {2}}};
  EXPECT_EQ(tried, expected);
  // 24 blocks (GPT-2 Medium): 3 to a stage of 8 stages, so 3 chunks; 16 stages do not cut 24 blocks evenly.
  EXPECT_EQ(planner::virtual_stage_counts(8, 24), (std::vector<int>{3}));
  EXPECT_EQ(planner::virtual_stage_counts(2, 24), (std::vector<int>{2, 3, 4, 6, 12}));
  EXPECT_TRUE(planner::virtual_stage_counts(16, 24).empty());
  EXPECT_TRUE(planner::virtual_stage_counts(1, 24).empty());
}

/// A device at full efficiency without a memory bandwidth, over links too fast to count: an iteration is the
/// slowest stage's compute over m + p - 1 micro-batch slots under 1F1B (Narayanan et al. 2021).
TEST(PlanEstimate, ComputeAloneIsTheSlowestStageTimesTheMicroBatchesAndTheBubble) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string fast = R"(name: fast
cluster:
  workers: 8
  device: {name: flat, peak_flops: "100TFLOPS", efficiency: 1, memory: "1000GiB"}
topology: {kind: fat_tree, arity: 4, network_model: analytical, link: {bandwidth: "1000000Tbps", latency: "0us"}}
model: {kind: "profile:gpt2_small"}
training:
  batch: {global: 32}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  scenario::Scenario s = with_point(fast, "{training.parallelism.pipeline: 4, training.parallelism.tensor: 2, "
                                          "training.parallelism.microbatches: 8, training.parallelism.data: 1}");
  const models::ModelProfile profile = profile_of(s, registries);
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  const planner::SplitEstimator estimator(profile, graph);
  const planner::SplitEstimate estimate = estimator.estimate(s);
  const std::vector<std::size_t> cuts = models::split_into_stages(profile, 4);
  double slowest = 0.0;
  for (std::size_t stage = 0; stage < 4; ++stage) {
    const models::ModelProfile layers =
        models::device_share(models::stage_profile(profile, cuts[stage], cuts[stage + 1]), scenario::device_share_of(s.training));
    double seconds = 0.0;
    for (const models::LayerProfile& layer : layers.layers) seconds += compute::layer_seconds(layer, 4.0, s.cluster.device_of(0));
    slowest = std::max(slowest, seconds);
  }
  EXPECT_NEAR(estimate.compute_s, 8.0 * slowest, 1e-9 * slowest);
  EXPECT_NEAR(estimate.iteration_s, (8.0 + 3.0) * slowest, 1e-6 * slowest);
}

/// Data parallelism alone over a ring of equal links: the gradients' allreduce is 2 (d - 1) rounds of latency
/// plus P x 4 bytes / d over the bandwidth.
TEST(PlanEstimate, TheGradientsRingIsTheAllreducesClosedForm) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string ring = R"(name: ring
cluster:
  workers: 4
  device: {name: flat, peak_flops: "100TFLOPS", efficiency: 1, memory: "1000GiB"}
topology: {kind: ring, network_model: analytical, link: {bandwidth: "8Gbps", latency: "5us"}}
model: {kind: "profile:gpt2_small"}
training:
  batch: {per_worker: 2}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  const scenario::Scenario s = with_point(ring, "{training.parallelism.data: 4}");
  const models::ModelProfile profile = profile_of(s, registries);
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  const planner::SplitEstimate estimate = planner::SplitEstimator(profile, graph).estimate(s);
  const double bytes = profile.parameters() * s.training.wire.gradients;
  EXPECT_NEAR(estimate.gradients_s, 2.0 * 3.0 * (5e-6 + bytes / 4.0 / 1e9), 1e-9);
  EXPECT_EQ(estimate.pipeline_s, 0.0);
  EXPECT_EQ(estimate.bubble_s, 0.0);
}

/// Two DGX A100 nodes over a fat tree of 100 Gb/s links, 4 to 1 oversubscribed (one spine, whose uplinks carry a
/// quarter of a leaf's ports), each device reaching its own NIC over a link as fast:
/// tensor pairs, then data (t2 d8: the ring {0, 2, ..., 14}). Where the ring crosses the nodes, the node's
/// devices at the same offset send at once, and the hop goes at the pace of the most shared link of its route,
/// counted on every link, not only on its first slowest (the device's own NIC link, which no other flow takes).
TEST(PlanEstimate, ARingHopAcrossNodesGoesAtThePaceOfItsMostSharedLink) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string two_nodes = R"(name: two-nodes
cluster:
  workers: 16
  device: {name: a100, precision: mixed}
  nodes:
    - {type: dgx_a100, count: 2}
topology: {kind: hierarchical, fabric: fat_tree, arity: 4, oversubscription: 4, nic: per_device, network_model: analytical,
           link: {bandwidth: "100Gbps", latency: "5us"}}
model: {kind: "profile:gpt2_medium"}
training:
  batch: {global: 32}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  const scenario::Scenario s = with_point(two_nodes, "{training.parallelism.tensor: 2, training.parallelism.data: 8, "
                                                     "training.parallelism.sequence_parallel: true}");
  const models::ModelProfile profile = profile_of(s, registries);
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  const topology::RoutingTable routes(graph);
  const auto workers = graph.workers();
  const auto machines = graph.worker_machines();
  const std::vector<int> ring = scenario::replica_group(s.training.parallelism, 0);
  ASSERT_EQ(ring, (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  const auto bandwidth_of = [&](const topology::Hop& hop) { return graph.link(hop.link).bandwidth.value(); };
  double bandwidth = std::numeric_limits<double>::infinity();
  double first_slowest = std::numeric_limits<double>::infinity();  // sharing counted on that link alone
  double latency = 0.0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const int a = ring[i];
    const int b = ring[(i + 1) % ring.size()];
    latency = std::max(latency, routes.latency(workers[a], workers[b]));
    const topology::Route& route = routes.route(workers[a], workers[b]);
    std::map<std::pair<std::size_t, bool>, int> flows;
    std::map<std::size_t, int> on_link;
    for (int q = 0; q < 16; ++q) {
      const int peer = q + (b - a);
      const bool crossing = machines[a] != machines[b] && machines[q] == machines[a] && peer >= 0 && peer < 16 &&
                            machines[peer] != machines[q];
      if (!crossing) continue;
      for (const topology::Hop& hop : routes.route(workers[q], workers[peer])) {
        ++flows[{hop.link, hop.forward}];
        ++on_link[hop.link];
      }
    }
    const topology::Hop* slowest = &route.front();
    for (const topology::Hop& hop : route) {
      bandwidth = std::min(bandwidth, bandwidth_of(hop) / std::max(1, flows[{hop.link, hop.forward}]));
      if (bandwidth_of(hop) < bandwidth_of(*slowest)) slowest = &hop;
    }
    first_slowest = std::min(first_slowest, bandwidth_of(*slowest) / std::max(1, on_link[slowest->link]));
  }
  ASSERT_LT(bandwidth, first_slowest) << "the case shares a link of the route after its first slowest";
  double parameters = 0.0;
  const models::ModelProfile share = models::device_share(profile, scenario::device_share_of(s.training));
  for (const models::LayerProfile& layer : share.layers) parameters += layer.parameters;
  const double bytes = parameters * s.training.wire.gradients;
  const planner::SplitEstimate estimate = planner::SplitEstimator(profile, graph).estimate(s);
  EXPECT_NEAR(estimate.gradients_s, 2.0 * 7.0 * (latency + bytes / 8.0 / bandwidth), 1e-9 * estimate.gradients_s);
}

/// A small mixture (4 blocks, 8 experts 3,584 wide, 2 a token) on two DGX H100 nodes.
constexpr const char* kMixture = R"(name: mixture
cluster:
  workers: 16
  device: {name: h100, precision: mixed}
  nodes:
    - {type: dgx_h100, count: 2}
topology: {kind: hierarchical, fabric: fat_tree, arity: 4, nic: per_device, network_model: analytical, link: {bandwidth: "400Gbps", latency: "2us"}}
model: {kind: "profile:llama", blocks: 4, hidden_size: 1024, heads: 16, key_value_heads: 4, ffn_hidden_size: 3584, experts: 8, top_k: 2, sequence_length: 1024}
training:
  batch: {global: 64}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";

/// An expert group of eight over two DGX H100 nodes (t2 e8: every other device of both nodes): a device sends
/// each peer an eighth of its tokens at once, three eighths to its own node's members over its NVLink port and
/// four eighths off the node, over links that the node's other members' flows (both expert groups') cross too.
/// The parts move side by side; the old estimate sent all seven eighths over the group's slowest hop, twice the
/// simulated all-to-all of a small mixture planned on these nodes.
TEST(PlanEstimate, AnAllToAllSendsItsOwnNodesPartAndTheRestSideBySide) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string mixture = kMixture;
  const scenario::Scenario s =
      with_point(mixture, "{training.parallelism.tensor: 2, training.parallelism.expert: 8, "
                          "training.parallelism.data: 8, training.parallelism.sequence_parallel: true}");
  const models::ModelProfile profile = profile_of(s, registries);
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  const topology::RoutingTable routes(graph);
  const auto workers = graph.workers();
  const auto machines = graph.worker_machines();
  const std::vector<int> group = scenario::group_along(s.training.parallelism, 0, scenario::ParallelAxis::Expert);
  ASSERT_EQ(group, (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
  // Every flow of node 0's devices to their expert peers on node 1, on each link and way.
  std::map<std::pair<std::size_t, bool>, int> leaving;
  for (int q = 0; q < 8; ++q) {
    for (const int peer : scenario::group_along(s.training.parallelism, q, scenario::ParallelAxis::Expert)) {
      if (machines[peer] == machines[q]) continue;
      for (const topology::Hop& hop : routes.route(workers[q], workers[peer])) ++leaving[{hop.link, hop.forward}];
    }
  }
  double local_bandwidth = std::numeric_limits<double>::infinity();
  double remote = 0.0;
  for (const int peer : group) {
    if (peer == 0) continue;
    for (const topology::Hop& hop : routes.route(workers[0], workers[peer])) {
      const double bandwidth = graph.link(hop.link).bandwidth.value();
      if (machines[peer] == machines[0]) {
        local_bandwidth = std::min(local_bandwidth, bandwidth);
      } else {
        remote = std::max(remote, leaving[{hop.link, hop.forward}] / 8.0 / bandwidth);
      }
    }
  }
  const double local = 3.0 / 8.0 / local_bandwidth;
  EXPECT_NEAR(planner::SplitEstimator(profile, graph).all_to_all_seconds_per_byte(s), std::max(local, remote),
              1e-12 * remote);
  // One node's group: its seven peers over the port, as before.
  const scenario::Scenario inside =
      with_point(mixture, "{training.parallelism.expert: 8, training.parallelism.data: 16}");
  double port = std::numeric_limits<double>::infinity();
  for (const topology::Hop& hop : routes.route(workers[0], workers[1])) {
    port = std::min(port, graph.link(hop.link).bandwidth.value());
  }
  EXPECT_NEAR(planner::SplitEstimator(profile, graph).all_to_all_seconds_per_byte(inside), 7.0 / 8.0 / port,
              1e-12 / port);
}

/// On the experts' own grid (expert_tensor declared) each tensor rank of t2 dispatches its own half of the routed
/// tokens: the values a device sends through the all-to-alls are halved, and the routed layers' sums leave the tensor
/// group (expert_tensor 1 sums nothing), so that the estimate's exchanges shrink.
TEST(PlanEstimate, TheExpertsOwnGridHalvesEachDevicesAllToAllsUnderTensorTwo) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string split = "{training.parallelism.tensor: 2, training.parallelism.expert: 4, "
                            "training.parallelism.data: 8, training.parallelism.sequence_parallel: true";
  const scenario::Scenario tensor = with_point(kMixture, split + "}");
  const scenario::Scenario grid = with_point(kMixture, split + ", training.parallelism.expert_tensor: 1}");
  ASSERT_FALSE(tensor.training.parallelism.expert_tensor_declared);
  ASSERT_TRUE(grid.training.parallelism.expert_tensor_declared);
  const models::ModelProfile profile = profile_of(tensor, registries);
  const auto sent = [&](const scenario::Scenario& s) {
    double out = 0.0;
    const models::ModelProfile device = models::device_share(profile, scenario::device_share_of(s.training));
    for (const models::LayerProfile& layer : device.layers) out += layer.exchange_elements;
    return out;
  };
  ASSERT_GT(sent(tensor), 0.0);
  EXPECT_DOUBLE_EQ(sent(grid), sent(tensor) / 2);
  const topology::TopologyGraph graph = scenario::build_topology(tensor, registries.topologies);
  const planner::SplitEstimator estimator(profile, graph);
  EXPECT_LT(estimator.estimate(grid).exchange_s, estimator.estimate(tensor).exchange_s);
}

/// On a full mesh every route is alike, so the estimate cannot tell t2 d4's two orders apart: both are kept to
/// be simulated, and a ZeRO stage that changes nothing the estimate sees is the twin of one in its own placement.
TEST(PlanSearch, CandidatesPlacedApartAreNeverTwins) {
  const checks::Registries registries = checks::make_builtin_registries();
  const std::string mesh = R"(name: mesh
cluster:
  workers: 8
  device: {name: flat, peak_flops: "100TFLOPS", efficiency: 1, memory: "1000GiB"}
topology: {kind: mesh, network_model: analytical, link: {bandwidth: "100Gbps", latency: "5us"}}
model: {kind: "profile:gpt2_small"}
training:
  batch: {global: 8}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  scenario::Scenario s = with_point(mesh, "{training.parallelism.data: 8}");
  const models::ModelProfile profile = profile_of(s, registries);
  planner::PlanSpace space;
  space.degree(scenario::ParallelAxis::Tensor) = 2;
  space.degree(scenario::ParallelAxis::Pipeline) = 1;
  space.microbatches = 1;
  space.recomputation = models::Recomputation::Selective;
  std::int64_t undivided = 0;
  const std::vector<planner::PlanCandidate> candidates =
      planner::enumerate_candidates(space, 8, profile.shape, 8, undivided);
  ASSERT_EQ(candidates.size(), 8U) << "ZeRO 0 to 3, placed t-p-d and d-p-t";
  const std::vector<analysis::PlanRow> rows = planner::screen_candidates(candidates, 8, s, profile, registries, {});
  std::map<std::string, const analysis::PlanRow*> by_split;
  for (const analysis::PlanRow& row : rows) by_split[row.split] = &row;
  std::map<std::string, int> standing;
  for (const analysis::PlanRow& row : rows) {
    // ZeRO 3 inside tensor groups is not simulated: the screen discards it, leaving ZeRO 0 to 2.
    EXPECT_EQ(row.discarded.empty(), row.zero < 3) << row.split << ": " << row.detail;
    if (!row.discarded.empty()) continue;
    if (row.same_as.empty()) {
      ++standing[row.placement];
      continue;
    }
    EXPECT_EQ(by_split.at(row.same_as)->placement, row.placement) << row.split << " is the twin of " << row.same_as;
    EXPECT_EQ(by_split.at(row.same_as)->estimate_s, row.estimate_s) << row.split;
  }
  // ZeRO 0, 1 and 2 are estimated alike: one standing in each placement.
  EXPECT_EQ(standing, (std::map<std::string, int>{{"d-p-t", 1}, {"t-p-d", 1}}));
}

/// The enumeration walks the axes' table in the planner's order: the splits it visits are, in order, those of nested
/// loops over the tensor, pipeline and context degrees (the data degree the devices left, counted undivided where it
/// does not divide the batch) and then the expert degrees that divide it and the experts.
TEST(PlanCandidates, VisitTheSplitsOfNestedLoopsOverTheAxesInTheirOrder) {
  using A = scenario::ParallelAxis;
  models::TransformerShape shape;
  shape.layers = 8;
  shape.sequence = 8192;
  shape.experts = 8;
  constexpr int kDevices = 64;
  constexpr std::int64_t kBatch = 32;
  const auto divisors = [](int n) {
    std::vector<int> out;
    for (int d = 1; d <= n; ++d) {
      if (n % d == 0) out.push_back(d);
    }
    return out;
  };
  std::vector<std::string> expected;
  for (const int t : divisors(kDevices)) {
    for (const int p : divisors(kDevices / t)) {
      for (const int c : divisors(kDevices / (t * p))) {
        if (c > 16) continue;
        const int d = kDevices / (t * p * c);
        if (kBatch % d != 0) {
          expected.push_back(fmt::format("undivided t{} p{} c{} d{}", t, p, c, d));
          continue;
        }
        for (const int e : divisors(d)) {
          if (shape.experts % e == 0) expected.push_back(fmt::format("t{} p{} c{} e{} d{}", t, p, c, e, d));
        }
      }
    }
  }
  // One candidate a split: every other choice fixed.
  planner::PlanSpace space;
  space.microbatches = 1;
  space.zero = 0;
  space.recomputation = models::Recomputation::None;
  space.schedule = models::PipelineSchedule::OneForwardOneBackward;
  space.placement = std::vector<A>{A::Tensor, A::Pipeline, A::Data};
  std::vector<std::string> visited;
  std::int64_t undivided = 0;
  planner::for_each_candidate(
      space, kDevices, shape, kBatch, undivided,
      [&](const planner::PlanCandidate& c) {
        visited.push_back(fmt::format("t{} p{} c{} e{} d{}", c.degree(A::Tensor), c.degree(A::Pipeline),
                                      c.degree(A::Context), c.degree(A::Expert), c.degree(A::Data)));
        return true;
      },
      [&](const planner::PlanCandidate& c) {
        EXPECT_EQ(c.degree(A::Expert), 1);
        visited.push_back(fmt::format("undivided t{} p{} c{} d{}", c.degree(A::Tensor), c.degree(A::Pipeline),
                                      c.degree(A::Context), c.degree(A::Data)));
      });
  EXPECT_EQ(visited, expected);
  EXPECT_EQ(undivided, std::count_if(expected.begin(), expected.end(),
                                     [](const std::string& split) { return split.starts_with("undivided"); }));
}

/// With --expert-tensor fixed the experts have their own grid, and the expert degrees tried divide a stage's tensor x
/// data devices (Megatron-Core's parallel folding), not the replicas alone: on 16 devices at tensor 2 and pipeline 2,
/// expert 8 beside data 4. Such a candidate is applied on the grid (expert_tensor declared, even at 1) and written so.
TEST(PlanCandidates, TheExpertsOwnGridTriesExpertDegreesFoldedOverTensorAndData) {
  using A = scenario::ParallelAxis;
  const checks::Registries registries = checks::make_builtin_registries();
  const scenario::Scenario s = with_point(kMixture, "{training.parallelism.data: 16}");
  const models::ModelProfile profile = profile_of(s, registries);
  planner::PlanSpace space;
  space.degree(A::Tensor) = 2;
  space.degree(A::Pipeline) = 2;
  space.degree(A::Context) = 1;
  space.microbatches = 1;
  space.zero = 0;
  space.recomputation = models::Recomputation::None;
  space.schedule = models::PipelineSchedule::OneForwardOneBackward;
  space.placement = std::vector<A>{A::Tensor, A::Pipeline, A::Data};
  const auto experts_tried = [&](const planner::PlanSpace& tried) {
    std::vector<int> out;
    std::optional<planner::PlanCandidate> folded;
    std::int64_t undivided = 0;
    planner::for_each_candidate(tried, 16, profile.shape, 64, undivided, [&](const planner::PlanCandidate& c) {
      out.push_back(c.degree(A::Expert));
      if (c.degree(A::Expert) > c.degree(A::Data)) folded = c;
      return true;
    });
    return std::pair{out, folded};
  };
  EXPECT_EQ(experts_tried(space).first, (std::vector<int>{1, 2, 4}));
  space.degree(A::ExpertTensor) = 1;
  const auto [grid, folded] = experts_tried(space);
  EXPECT_EQ(grid, (std::vector<int>{1, 2, 4, 8}));
  ASSERT_TRUE(folded.has_value());
  scenario::Scenario applied = s;
  planner::apply_candidate(*folded, 64, applied);
  EXPECT_TRUE(applied.training.parallelism.expert_tensor_declared);
  EXPECT_NE(planner::sweep_point_yaml(*folded, 64, s).find("training.parallelism.expert_tensor: 1"), std::string::npos);
}

/// Enumerating lazily visits what enumerate_candidates lists, in its order; counting visits as many; each row's
/// candidate reads back from the row as the candidate it describes.
TEST(PlanCandidates, AreVisitedOneAtATimeInTheListsOrderAndReadBackFromTheirRows) {
  const checks::Registries registries = checks::make_builtin_registries();
  const scenario::Scenario s = with_point(kPlanned, "{training.parallelism.data: 8}");
  const models::ModelProfile profile = profile_of(s, registries);
  std::int64_t listed_undivided = 0;
  const std::vector<planner::PlanCandidate> listed =
      planner::enumerate_candidates({}, 8, profile.shape, 64, listed_undivided);
  std::vector<std::string> visited;
  std::int64_t undivided = 0;
  planner::for_each_candidate({}, 8, profile.shape, 64, undivided, [&](const planner::PlanCandidate& c) {
    visited.push_back(c.label());
    return true;
  });
  ASSERT_EQ(visited.size(), listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(visited[i], listed[i].label());
    EXPECT_EQ(planner::candidate_of_row(planner::row_of(listed[i])).label(), listed[i].label());
  }
  EXPECT_EQ(undivided, listed_undivided);
  EXPECT_EQ(planner::count_candidates({}, 8, profile.shape, 64), static_cast<std::int64_t>(listed.size()));
  std::int64_t ignored = 0;
  int seen = 0;
  planner::for_each_candidate({}, 8, profile.shape, 64, ignored,
                              [&](const planner::PlanCandidate&) { return ++seen < 3; });
  EXPECT_EQ(seen, 3) << "stops where the visitor says";
}

/// 20,000 rows through a tally keeping the 50 best estimates (about 40 rows each): it holds those, each group's
/// twins marked as a sorted list marks them, the front none beats with less memory and the pinned split, counts
/// the discards, and sets every other row aside; held and set aside, every row is there once.
TEST(PlanTally, HoldsTheBestAndTheFrontAndSetsTheRestAside) {
  analysis::RowSpill spill;
  planner::PlanTally tally(50, spill, {"pinned"});
  std::mt19937_64 draw(7);
  std::vector<analysis::PlanRow> fitting;
  std::map<std::string, std::int64_t> discarded;
  constexpr int kRows = 20'000;
  for (int i = 0; i < kRows; ++i) {
    analysis::PlanRow row;
    const bool pinned = i == 19'000;
    row.split = pinned ? "pinned" : fmt::format("s{}", i);
    row.placement = draw() % 2 == 0 ? "t-p-d" : "d-p-t";
    if (!pinned && draw() % 5 == 0) {
      row.discarded = draw() % 2 == 0 ? "memory" : "training.parallelism.tensor";
      row.detail = "why";
      ++discarded[row.discarded];
    } else {
      // 400 estimates, so that many rows share one; the pinned one the slowest of all.
      row.estimate_s = pinned ? 10.0 : 1.0 + static_cast<double>(draw() % 400) / 100.0;
      row.memory_bytes = static_cast<double>(1 + draw() % 1000) * 1e9;
      row.estimate_tokens_per_s = 1e6 / row.estimate_s;
      fitting.push_back(row);
    }
    tally.add(row);
  }
  EXPECT_EQ(tally.screened(), kRows);
  EXPECT_EQ(tally.fitting(), static_cast<std::int64_t>(fitting.size()));
  // The 50 best estimates as a sorted list has them, the first of each placement in a group standing for the rest.
  std::sort(fitting.begin(), fitting.end(), [](const analysis::PlanRow& a, const analysis::PlanRow& b) {
    if (a.estimate_s != b.estimate_s) return a.estimate_s < b.estimate_s;
    return a.memory_bytes != b.memory_bytes ? a.memory_bytes < b.memory_bytes : a.split < b.split;
  });
  std::vector<std::pair<std::string, std::string>> best;  // split, same_as
  std::map<std::string, std::string> standing;
  int groups = 0;
  for (std::size_t i = 0; i < fitting.size(); ++i) {
    if (i == 0 || fitting[i].estimate_s != fitting[i - 1].estimate_s) {
      if (++groups > 50) break;
      standing.clear();
    }
    const auto [first, fresh] = standing.try_emplace(fitting[i].placement, fitting[i].split);
    best.emplace_back(fitting[i].split, fresh ? "" : first->second);
  }
  const std::vector<analysis::PlanRow> held = tally.rows();
  ASSERT_GE(held.size(), best.size());
  for (std::size_t i = 0; i < best.size(); ++i) {
    EXPECT_EQ(held[i].split, best[i].first) << i;
    EXPECT_EQ(held[i].same_as, best[i].second) << held[i].split;
  }
  // The front as report.html draws it: by memory, the fastest first, each faster than all with no more memory.
  std::vector<analysis::PlanRow> by_memory = fitting;
  std::stable_sort(by_memory.begin(), by_memory.end(), [](const analysis::PlanRow& a, const analysis::PlanRow& b) {
    if (a.memory_bytes != b.memory_bytes) return a.memory_bytes < b.memory_bytes;
    return a.estimate_tokens_per_s > b.estimate_tokens_per_s;
  });
  std::set<std::pair<double, double>> front;
  double fastest = -1.0;
  for (const analysis::PlanRow& row : by_memory) {
    if (row.estimate_tokens_per_s <= fastest) continue;
    fastest = row.estimate_tokens_per_s;
    front.emplace(row.memory_bytes, row.estimate_tokens_per_s);
  }
  std::set<std::pair<double, double>> held_points;
  std::set<std::string> held_splits;
  for (const analysis::PlanRow& row : held) {
    held_points.emplace(row.memory_bytes, row.estimate_tokens_per_s);
    held_splits.insert(row.split);
  }
  for (const auto& point : front) EXPECT_EQ(held_points.count(point), 1U) << point.first << " bytes, " << point.second;
  EXPECT_EQ(held_splits.count("pinned"), 1U);
  EXPECT_LE(held.size(), best.size() + front.size() + 1) << "holds no more than the best, the front and the pinned";
  // Every row once: those held, and those set aside (the split is the second field of a line).
  std::ostringstream aside;
  spill.copy_to(aside);
  std::istringstream lines(aside.str());
  std::set<std::string> splits = held_splits;
  for (std::string line; std::getline(lines, line);) {
    const std::string split = line.substr(line.find(',') + 1, line.find(',', line.find(',') + 1) - line.find(',') - 1);
    EXPECT_TRUE(splits.insert(split).second) << split << " twice";
  }
  EXPECT_EQ(splits.size(), static_cast<std::size_t>(kRows));
  EXPECT_EQ(spill.rows() + static_cast<std::int64_t>(held.size()), kRows);
  std::map<std::string, std::int64_t> counted;
  for (const analysis::PlanDiscard& d : tally.discards(0, 64)) counted[d.reason] = d.count;
  EXPECT_EQ(counted, discarded);
}

}  // namespace
}  // namespace dtsim::app

namespace dtsim::app {
namespace {

// A scenario's file name is pasted into the comments and includes of the files plan and scale generate: a
// name with line breaks must stay one quoted scalar, adding no key.
TEST(YamlQuoted, AHostileFileNameStaysOneLineAndOneScalar) {
  const std::string hostile = "s.yaml\ntraining: {stop: {iterations: 1}}\r\x01\xe2\x80\xa8\"\\";
  const std::string quoted = planner::yaml_quoted(hostile);
  EXPECT_EQ(quoted, R"("s.yaml\ntraining: {stop: {iterations: 1}}\r\u0001\u2028\"\\")");
  EXPECT_EQ(quoted.find_first_of("\n\r"), std::string::npos);
  const std::string text =
      planner::points_scenario("The best splits of " + quoted, hostile, {"{training.parallelism.data: 8}"});
  EXPECT_EQ(text.substr(0, text.find('\n')), "# The best splits of " + quoted);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5) << text;
}

/// What `call` refuses, as dtsim prints it; "no error" where it refuses nothing.
template <class Call>
std::string refusal(const Call& call) {
  try {
    static_cast<void>(call());
  } catch (const core::InputError& error) {
    return error.what();
  }
  return "no error";
}

// The flags of `dtsim plan` and the keywords of Python's dtsim.plan are read by the same functions: names become
// their values, and a name the command line's own check would have refused is refused at its flag.
TEST(PlanSpaceArguments, NamesBecomeTheirValuesAndAnUnknownOneIsRefusedAtItsFlag) {
  PlanSpaceArguments given;
  given.degrees["tensor"] = 2;
  given.zero = 1;
  given.recomputation = "selective";
  given.schedule = "interleaved_1f1b";
  given.keep_placement = true;
  const planner::PlanSpace space = plan_space(given, "dtsim plan");
  EXPECT_EQ(space.degree(scenario::ParallelAxis::Tensor), 2);
  EXPECT_EQ(space.degree(scenario::ParallelAxis::Pipeline), std::nullopt);
  EXPECT_EQ(space.zero, 1);
  EXPECT_EQ(space.recomputation, models::Recomputation::Selective);
  EXPECT_EQ(space.schedule, models::PipelineSchedule::Interleaved);
  EXPECT_TRUE(space.keep_placement);
  EXPECT_EQ(plan_space({}, "dtsim plan").schedule, std::nullopt);
  given.schedule = "1f1c";
  EXPECT_EQ(refusal([&] { return plan_space(given, "dtsim plan"); }),
            "dtsim plan: error: --schedule: unknown pipeline schedule '1f1c'\n"
            "  hint: did you mean '1f1b'? one of gpipe, 1f1b, interleaved_1f1b, zero_bubble, dualpipe");
  given.schedule = std::nullopt;
  given.recomputation = "most";
  EXPECT_EQ(refusal([&] { return plan_space(given, "dtsim scale"); }),
            "dtsim scale: error: --recomputation: unknown recomputation 'most'\n  hint: one of none, selective, full");
  given.recomputation = std::nullopt;
  given.degrees["data"] = 2;  // what the other degrees leave: never fixed
  EXPECT_EQ(refusal([&] { return plan_space(given, "dtsim plan"); }),
            "dtsim plan: error: data: the planner tries no degree named 'data'\n"
            "  hint: fix one of tensor, pipeline, context, expert_tensor, expert");
}

TEST(PlanSpaceArguments, TheMemoryCapIsASizeAboveZero) {
  PlanSpaceArguments given;
  EXPECT_EQ(memory_cap(given, "dtsim plan"), std::nullopt);
  given.max_memory = "70GiB";
  EXPECT_EQ(memory_cap(given, "dtsim plan"), 70.0 * 1024 * 1024 * 1024);
  given.max_memory = "0GiB";
  EXPECT_EQ(refusal([&] { return memory_cap(given, "dtsim plan"); }),
            "dtsim plan: error: --max-memory: must be above zero, got \"0GiB\"\n"
            "  hint: give the memory a device may use as a size, such as 70GiB");
  given.max_memory = "70";
  EXPECT_EQ(refusal([&] { return memory_cap(given, "dtsim plan"); }),
            "dtsim plan: error: --max-memory: a size needs a unit, got the bare number \"70\"\n"
            "  hint: write it with a unit, for example \"64MiB\"");
}

}  // namespace
}  // namespace dtsim::app
