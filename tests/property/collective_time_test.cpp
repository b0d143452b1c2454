// Every registered collective algorithm, simulated on the built-in topology where none of its messages
// share a link (a ring for the ring algorithms, a full mesh for the others), takes exactly its closed-form
// alpha-beta time, for p in {2, 3, 5, 8, 16, 64} and sizes from 1 KiB to 256 MiB (timing-only, round by
// round); alpha and B are read back from the built topology. With real values the results arrive too. The
// closed-form network model gives the same times there.

#include "sim/comm/all_to_all.hpp"
#include "sim/comm/collective_algorithm.hpp"
#include "sim/comm/hierarchical_allreduce.hpp"
#include "sim/comm/library_collective.hpp"
#include "sim/runtime/network/collective_run.hpp"
#include "sim/scenario/config_loader.hpp"
#include "sim/topology/routing.hpp"
#include "tests/support/scenario_format.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/mesh.hpp"
#include "topologies/ring.hpp"
#include "topologies/tree.hpp"

#include <gtest/gtest.h>

#include <map>

namespace dtsim {
namespace {

const topologies::LinkSpec kLink{core::parse_bandwidth("10Gbps"), core::parse_duration("5us")};

std::vector<std::vector<float>> integer_inputs(int ranks, std::size_t elements) {
  std::vector<std::vector<float>> out(static_cast<std::size_t>(ranks), std::vector<float>(elements));
  for (int r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < elements; ++i) out[static_cast<std::size_t>(r)][i] = static_cast<float>(r + 1 + i % 7);
  }
  return out;
}

comm::CollectiveCatalog builtin() {
  comm::CollectiveCatalog catalog;
  comm::register_builtin_collectives(catalog);
  return catalog;
}

/// "operation/algorithm" for every registered algorithm.
std::vector<std::string> algorithms() {
  const comm::CollectiveCatalog catalog = builtin();
  std::vector<std::string> out;
  for (const comm::Operation operation : comm::all_operations()) {
    for (const auto& name : catalog.of(operation).names()) out.push_back(std::string(comm::to_string(operation)) + "/" + name);
  }
  return out;
}

std::unique_ptr<comm::CollectiveAlgorithm> make(const std::string& qualified) {
  const std::size_t slash = qualified.find('/');
  return builtin().of(*comm::operation_named(qualified.substr(0, slash))).find(qualified.substr(slash + 1)).factory.make();
}

topology::TopologyGraph uncontended_topology(const comm::CollectiveAlgorithm& algorithm, int ranks) {
  return algorithm.uncontended_on() == "ring" ? topologies::build_ring(ranks, kLink) : topologies::build_mesh(ranks, kLink);
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, int>>& param_info) {
  std::string name = std::get<0>(param_info.param);
  std::replace(name.begin(), name.end(), '/', '_');
  return name + "_p" + std::to_string(std::get<1>(param_info.param));
}

class CollectiveOnItsTopology : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

/// Times `name` on `ranks` ranks of its uncontended topology under `model`, at sizes from 1 KiB to 256 MiB each
/// `factor` times the last, and expects each within 0.1% of its alpha-beta closed form.
void expect_closed_form_times(const std::string& name, int ranks, scenario::NetworkModel model, double factor) {
  const auto algorithm = make(name);
  const topology::TopologyGraph graph = uncontended_topology(*algorithm, ranks);
  const comm::AlphaBeta cost{graph.link(0).latency, graph.link(0).bandwidth};
  std::vector<runtime::CollectiveCase> cases;
  for (double size = 1024.0; size <= 268435456.0; size *= factor) {
    cases.push_back({algorithm.get(), static_cast<std::size_t>(size / 4), false});
  }
  const std::vector<double> times = runtime::time_collective_cases(graph, model, cases);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double size = 4.0 * static_cast<double>(cases[i].elements);
    const double predicted = algorithm->predicted_time(ranks, core::Bytes(size), cost).value();
    EXPECT_NEAR(times[i], predicted, 1e-3 * predicted) << size << " B";
  }
}

TEST_P(CollectiveOnItsTopology, MatchesItsAlphaBetaClosedFormFrom1KiBTo256MiB) {
  const auto [name, ranks] = GetParam();
  expect_closed_form_times(name, ranks, scenario::NetworkModel::AlphaBeta, 4.0);
}

class RealValuesOnItsTopology : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(RealValuesOnItsTopology, MovesTheRealValuesInTheSameTime) {
  const auto [name, ranks] = GetParam();
  const auto algorithm = make(name);
  const topology::TopologyGraph graph = uncontended_topology(*algorithm, ranks);
  const comm::AlphaBeta cost{graph.link(0).latency, graph.link(0).bandwidth};
  const std::size_t elements = 262144;
  const runtime::CollectiveOutcome outcome =
      runtime::simulate_collective(graph, scenario::NetworkModel::AlphaBeta, *algorithm, integer_inputs(ranks, elements));
  const double predicted = algorithm->predicted_time(ranks, core::Bytes(4.0 * elements), cost).value();
  EXPECT_NEAR(outcome.simulated_s, predicted, 1e-3 * predicted);
  if (algorithm->operation() != comm::Operation::allreduce) return;  // the invariant suite checks the others
  // Element i is the sum over r of (r + 1 + i % 7), on every rank.
  for (const auto& result : outcome.results) {
    for (std::size_t i = 0; i < elements; i += 4099) {
      ASSERT_EQ(result[i], static_cast<float>(ranks * (ranks + 1) / 2 + ranks * static_cast<int>(i % 7)));
    }
  }
}

/// Whether a network that times phases at once can time `qualified` (its phases or steps are the group's).
bool timed_at_once(const std::string& qualified) {
  const std::size_t slash = qualified.find('/');
  return builtin().of(*comm::operation_named(qualified.substr(0, slash))).find(qualified.substr(slash + 1)).factory.timed_at_once;
}

// `network_model: closed_form` times each flow alone on its route: where no message shares a link, that is
// the algorithm's closed form, which message by message gives too (CollectiveOnItsTopology), to the same
// 0.1%, for every algorithm it can time. (One engine per process: the two models are compared through the
// closed form.)
class ClosedFormOnItsTopology : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(ClosedFormOnItsTopology, EqualsMessageByMessageFrom1KiBTo256MiB) {
  const auto [name, ranks] = GetParam();
  if (!timed_at_once(name)) GTEST_SKIP() << name << " sends its messages one by one";
  expect_closed_form_times(name, ranks, scenario::NetworkModel::ClosedForm, 16.0);
}

// Where messages share links, closed_form is blind to it: the direct allreduce on a ring of 8 sends each of
// its two every-to-every steps as 56 flows, up to 4 hops long, which share the ring's links message by
// message; closed_form gives each step one flow's time alone, 4 latencies plus an eighth of the data over
// one link.
TEST(ClosedFormNetwork, TimesEveryFlowAsIfAlone) {
  const auto direct = make("allreduce/direct");
  const topology::TopologyGraph ring = topologies::build_ring(8, kLink);
  const std::size_t elements = std::size_t{1} << 20;
  const std::vector<runtime::CollectiveCase> cases{{direct.get(), elements, false}};
  const double closed = runtime::time_collective_cases(ring, scenario::NetworkModel::ClosedForm, cases)[0];
  const double step = 4 * ring.link(0).latency.value() + 4.0 * elements / 8 / ring.link(0).bandwidth.value();
  EXPECT_NEAR(closed, 2 * step, 1e-9 * step);
}

INSTANTIATE_TEST_SUITE_P(Registered, ClosedFormOnItsTopology,
                         ::testing::Combine(::testing::ValuesIn(algorithms()), ::testing::Values(2, 5, 16)), case_name);

INSTANTIATE_TEST_SUITE_P(Registered, CollectiveOnItsTopology,
                         ::testing::Combine(::testing::ValuesIn(algorithms()), ::testing::Values(2, 3, 5, 8, 16, 64)),
                         case_name);

// Real buffers make memory grow with ranks x size: up to 16 ranks of 1 MiB.
INSTANTIATE_TEST_SUITE_P(Registered, RealValuesOnItsTopology,
                         ::testing::Combine(::testing::ValuesIn(algorithms()), ::testing::Values(2, 5, 16)), case_name);

// The phase shortcut (one transfer for the identical rounds of a ring phase) gives the same simulated times
// as simulating every round, under both network models, wherever it applies; where it does not (a tree,
// whose routes differ in length and share links) the rounds run one by one anyway.
class PhaseShortcut : public ::testing::TestWithParam<std::tuple<std::string, int, std::string, std::string>> {};

TEST_P(PhaseShortcut, GivesTheSameSimulatedTimeAsEveryRound) {
  const auto [name, ranks, topology_kind, model_name] = GetParam();
  const auto algorithm = make(name);
  const topology::TopologyGraph graph = topology_kind == "ring"          ? topologies::build_ring(ranks, kLink)
                                        : topology_kind == "one_way_ring" ? topologies::build_ring(ranks, kLink, false)
                                                                          : topologies::build_tree(ranks, 2, kLink);
  const auto model = model_name == "tcp" ? scenario::NetworkModel::Tcp : scenario::NetworkModel::AlphaBeta;
  // Equal chunks (the shortcut's case) and unequal ones (always round by round), each both ways.
  std::vector<runtime::CollectiveCase> cases;
  for (const std::size_t elements : {std::size_t{16} * static_cast<std::size_t>(ranks), std::size_t{262144} / 64 * 64 * 4,
                                     std::size_t{262147}}) {
    cases.push_back({algorithm.get(), elements, false});
    cases.push_back({algorithm.get(), elements, true});
  }
  const std::vector<double> times = runtime::time_collective_cases(graph, model, cases);
  for (std::size_t i = 0; i < cases.size(); i += 2) {
    EXPECT_NEAR(times[i + 1], times[i], 1e-9 * times[i]) << cases[i].elements << " elements";
    EXPECT_GT(times[i], 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(RingPhases, PhaseShortcut,
                         ::testing::Combine(::testing::Values("allreduce/ring", "reduce_scatter/ring", "allgather/ring"),
                                            ::testing::Values(3, 8, 64), ::testing::Values("ring", "one_way_ring", "tree"),
                                            ::testing::Values("alpha_beta", "tcp")),
                         [](const auto& param_info) {
                           std::string name = std::get<0>(param_info.param);
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name + "_p" + std::to_string(std::get<1>(param_info.param)) + "_" +
                                  std::get<2>(param_info.param) + "_" + std::get<3>(param_info.param);
                         });

// Contention is real. A direct allreduce on 16 ranks sends, in each of its two rounds, 15 chunks of n/16
// from every rank at once: each worker's own link carries 15 flows, so no round can end before
// 15 (n/16)/B. With 4 workers per leaf, each leaf sends 48 of its flows to other leaves. Over 4 spines
// that is 12 flows per uplink on average, fewer than a worker link's 15, so the worker links decide
// (the hash may load one uplink a little more). Over 2 spines (oversubscription 2) it is 24 per uplink:
// the spines decide, and each round takes about 24/15 = 1.6 times longer.
double worker_link_bound(std::size_t elements) { return 2 * 15 * (4.0 * static_cast<double>(elements) / 16) / kLink.bandwidth.value(); }

constexpr std::size_t kContentionElements = 1 << 20;

TEST(Contention, AFullBisectionFatTreeRunsAtTheWorkerLinkBound) {
  const auto outcome = runtime::simulate_collective(topologies::build_fat_tree(16, 4, 1.0, kLink),
                                                   scenario::NetworkModel::AlphaBeta, *make("allreduce/direct"),
                                                   integer_inputs(16, kContentionElements));
  const double bound = worker_link_bound(kContentionElements);
  EXPECT_GE(outcome.simulated_s, bound);
  EXPECT_LE(outcome.simulated_s, 1.2 * bound) << outcome.simulated_s << " s against " << bound << " s";
  RecordProperty("simulated_s", std::to_string(outcome.simulated_s));
  RecordProperty("worker_link_bound_s", std::to_string(bound));
}

TEST(Contention, AnOversubscribedFatTreeIsLimitedByItsSpines) {
  const auto outcome = runtime::simulate_collective(topologies::build_fat_tree(16, 4, 2.0, kLink),
                                                   scenario::NetworkModel::AlphaBeta, *make("allreduce/direct"),
                                                   integer_inputs(16, kContentionElements));
  const double bound = worker_link_bound(kContentionElements);
  EXPECT_GE(outcome.simulated_s, 1.5 * bound) << outcome.simulated_s << " s against " << bound << " s";
  RecordProperty("simulated_s", std::to_string(outcome.simulated_s));
  RecordProperty("worker_link_bound_s", std::to_string(bound));
}

// Contention is what the most loaded link predicts. Counted from the routes: k, the most ring flows on one
// link direction, and L, the longest ring-neighbour route's latency. Every ring step then takes
// L + k (n/p)/B, and the ring allreduce 2(p-1)(L + k (n/p)/B), against 2(p-1)(alpha + (n/p)/B) on a ring.
// On a binary tree the ranks' in-order ring crosses every link once each way (k = 1) but climbs up to
// 2 log2 p links; on a dumbbell (even ranks behind one switch, odd behind another) every step crosses the
// middle link, k = p/2.
topology::TopologyGraph dumbbell(int ranks) {
  topology::TopologyGraph graph;
  const topology::NodeId left = graph.add_switch("left");
  const topology::NodeId right = graph.add_switch("right");
  for (int r = 0; r < ranks; ++r) {
    const topology::NodeId worker = graph.add_worker("worker-" + std::to_string(r));
    graph.add_link(worker, r % 2 == 0 ? left : right, kLink.bandwidth, kLink.latency, "test");
  }
  graph.add_link(left, right, kLink.bandwidth, kLink.latency, "test");
  return graph;
}

class RingContention : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(RingContention, MostLoadedLinkPredictsTheSlowdown) {
  const auto [shape, ranks, expected_load] = GetParam();
  const topology::TopologyGraph graph = shape == "tree" ? topologies::build_tree(ranks, 2, kLink) : dumbbell(ranks);
  const topology::RoutingTable routes(graph);
  std::map<std::pair<std::size_t, bool>, int> flows_per_direction;
  double longest = 0.0;
  for (int r = 0; r < ranks; ++r) {
    double latency = 0.0;
    for (const topology::Hop& hop :
         routes.route(graph.workers()[static_cast<std::size_t>(r)], graph.workers()[static_cast<std::size_t>((r + 1) % ranks)])) {
      ++flows_per_direction[{hop.link, hop.forward}];
      latency += graph.link(hop.link).latency.value();
    }
    longest = std::max(longest, latency);
  }
  int most_loaded = 0;
  for (const auto& [direction, flows] : flows_per_direction) most_loaded = std::max(most_loaded, flows);
  ASSERT_EQ(most_loaded, expected_load);

  const auto ring = make("allreduce/ring");
  std::vector<runtime::CollectiveCase> cases;
  for (const std::size_t elements : {std::size_t{256}, std::size_t{1} << 16U, std::size_t{1} << 24U}) {
    cases.push_back({ring.get(), elements, false});
  }
  const std::vector<double> times = runtime::time_collective_cases(graph, scenario::NetworkModel::AlphaBeta, cases);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double chunk = 4.0 * static_cast<double>(cases[i].elements) / ranks;
    const double predicted = 2 * (ranks - 1) * (longest + most_loaded * chunk / kLink.bandwidth.value());
    EXPECT_NEAR(times[i], predicted, 1e-3 * predicted) << chunk * ranks << " B";
  }
  // For large buffers, against the same allreduce on a ring: k times slower, give or take latency.
  const double on_a_ring =
      ring->predicted_time(ranks, core::Bytes(4.0 * static_cast<double>(cases.back().elements)), {kLink.latency, kLink.bandwidth})
          .value();
  EXPECT_NEAR(times.back() / on_a_ring, most_loaded, 0.02 * most_loaded);
}

INSTANTIATE_TEST_SUITE_P(Shapes, RingContention,
                         ::testing::Values(std::tuple{"tree", 8, 1}, std::tuple{"tree", 16, 1}, std::tuple{"dumbbell", 8, 4},
                                           std::tuple{"dumbbell", 16, 8}),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_p" + std::to_string(std::get<1>(param_info.param));
                         });

constexpr int kPerNode = 4;
constexpr int kNodes = 4;
const topologies::LinkSpec kIntra{core::parse_bandwidth("300GBps"), core::parse_duration("1us")};

/// 4 nodes of 4 devices, every pair of a node's devices linked (kIntra), one NIC per node joined to the
/// node's devices (kIntra) and to the other NICs by `fabric` (kLink).
topology::TopologyGraph four_nodes_of_four(const std::string& fabric) {
  core::DiagnosticSink sink;
  const core::ConfigNode section = scenario::load_config_text(dtsim::test::scenario_format().schema(), 
      "{kind: hierarchical, fabric: " + fabric + ", link: {bandwidth: 10Gbps, latency: 5us}}", "topology.yaml", sink);
  topologies::TopologyRegistry registry("topology");
  topologies::register_builtin_topologies(registry);
  topologies::TopologyContext context;
  context.workers = kPerNode * kNodes;
  context.nodes = {topologies::NodeShape{kNodes, kPerNode, kIntra, topologies::IntraNode::AllToAll}};
  return topologies::build_topology(registry, "hierarchical", core::View(&section, "topology"), context);
}

// The hierarchical allreduce on 4 nodes of 4 devices, NICs in a ring: inside a node every ring step has its
// own 300 GB/s link; across nodes the 4 rings of local indices share each NIC link, so a flow gets
// min(B_intra, B_fabric / 4) over a path of two intra links and one fabric link.
TEST(HierarchicalAllreduce, MatchesItsTwoLevelClosedForm) {
  const topology::TopologyGraph graph = four_nodes_of_four("ring");
  const auto algorithm = make("allreduce/hierarchical");
  std::vector<runtime::CollectiveCase> cases;
  for (const std::size_t elements : {std::size_t{1} << 18U, std::size_t{1} << 24U}) cases.push_back({algorithm.get(), elements});
  const std::vector<double> times = runtime::time_collective_cases(graph, scenario::NetworkModel::AlphaBeta, cases);
  const comm::AlphaBeta inside{kIntra.latency, kIntra.bandwidth};
  const comm::AlphaBeta across{kIntra.latency * 2.0 + kLink.latency,
                               core::BytesPerSecond(std::min(kIntra.bandwidth.value(), kLink.bandwidth.value() / kPerNode))};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const core::Bytes size(4.0 * static_cast<double>(cases[i].elements));
    const double predicted = comm::hierarchical_allreduce_time(kPerNode, kNodes, size, inside, across).value();
    EXPECT_NEAR(times[i], predicted, 1e-3 * predicted) << size.value() << " B";
  }
}

// The hierarchical all-to-all on the same nodes, NICs fully meshed: inside a node each rank sends its 3
// neighbours 4 pieces each, every message on its own link; across, each rank sends the rank of its local
// index on each of the 3 other nodes 4 pieces, the 4 ranks of a node sharing each NIC-to-NIC link (and each
// device's link to the NIC carrying its 3 flows): a flow gets min(B_intra / 3, B_fabric / 4) over two intra
// links and one fabric link. Message by message and under the analytical network alike.
class HierarchicalAllToAll : public ::testing::TestWithParam<scenario::NetworkModel> {};

TEST_P(HierarchicalAllToAll, MatchesItsTwoLevelClosedForm) {
  const topology::TopologyGraph graph = four_nodes_of_four("mesh");
  const auto algorithm = make("all_to_all/hierarchical");
  std::vector<runtime::CollectiveCase> cases;
  for (const std::size_t elements : {std::size_t{1} << 12U, std::size_t{1} << 18U, std::size_t{1} << 24U}) {
    cases.push_back({algorithm.get(), elements});
  }
  const std::vector<double> times = runtime::time_collective_cases(graph, GetParam(), cases);
  const comm::AlphaBeta inside{kIntra.latency, kIntra.bandwidth};
  const comm::AlphaBeta across{
      kIntra.latency * 2.0 + kLink.latency,
      core::BytesPerSecond(std::min(kIntra.bandwidth.value() / (kNodes - 1), kLink.bandwidth.value() / kPerNode))};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const core::Bytes size(4.0 * static_cast<double>(cases[i].elements));
    const double predicted = comm::hierarchical_all_to_all_time(kPerNode, kNodes, size, inside, across).value();
    EXPECT_NEAR(times[i], predicted, 1e-3 * predicted) << size.value() << " B";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, HierarchicalAllToAll,
                         ::testing::Values(scenario::NetworkModel::AlphaBeta, scenario::NetworkModel::Analytical),
                         [](const auto& param_info) { return std::string(scenario::to_string(param_info.param)); });

TEST(AllreduceOnItsTopology, TcpModelIsSlowerThanAlphaBeta) {
  // SimGrid's calibrated TCP model multiplies latency by 13.01 and bandwidth by 0.97, so the same
  // allreduce must take longer than the textbook time.
  const auto ring = make("allreduce/ring");
  const topology::TopologyGraph graph = topologies::build_ring(4, kLink);
  const double predicted = ring->predicted_time(4, core::Bytes(1048576.0), {kLink.latency, kLink.bandwidth}).value();
  const auto outcome =
      runtime::simulate_collective(graph, scenario::NetworkModel::Tcp, *ring, integer_inputs(4, 262144));
  EXPECT_GT(outcome.simulated_s, predicted * 1.01);
}

}  // namespace
}  // namespace dtsim

namespace dtsim {
namespace {

// Run as a library runs it, a ring allreduce takes NCCL's model of it: latency plus its closed-form network
// time, the part beyond the network's latency over the chosen protocol's bandwidth share, from
// latency-bound 1 KiB (a low-latency protocol) to bandwidth-bound 256 MiB (Simple). On a ring topology
// every rank is a machine of its own: every step crosses machines.
TEST(LibraryCollective, SimulatedTimeIsTheModelsOnTheClosedFormNetworkTime) {
  constexpr int kRanks = 8;
  const topology::TopologyGraph graph = topologies::build_ring(kRanks, kLink);
  const comm::AlphaBeta cost{graph.link(0).latency, graph.link(0).bandwidth};
  const comm::LibraryCollective library(make("allreduce/ring"));
  std::vector<runtime::CollectiveCase> cases;
  for (double size = 1024.0; size <= 268435456.0; size *= 16.0) {
    cases.push_back({&library, static_cast<std::size_t>(size / 4), false});
  }
  const std::vector<double> times = runtime::time_collective_cases(graph, scenario::NetworkModel::AlphaBeta, cases);
  std::vector<comm::Protocol> chosen;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double size = 4.0 * static_cast<double>(cases[i].elements);
    const comm::NetworkTime network{make("allreduce/ring")->predicted_time(kRanks, core::Bytes(size), cost).value(),
                                    make("allreduce/ring")->predicted_time(kRanks, core::Bytes(0.0), cost).value()};
    const comm::CallShape call{comm::Operation::allreduce, kRanks, kRanks, size};
    chosen.push_back(comm::chosen_protocol(call, network));
    const double expected = comm::library_time(chosen.back(), call, network);
    EXPECT_NEAR(times[i], expected, 1e-3 * expected) << size << " B";
    EXPECT_NEAR(library.predicted_time(kRanks, core::Bytes(size), cost).value(), expected, 1e-9 * expected);
  }
  EXPECT_NE(chosen.front(), comm::Protocol::Simple);
  EXPECT_EQ(chosen.back(), comm::Protocol::Simple);
}

}  // namespace
}  // namespace dtsim
