// Where jobs go on a two-level tree of four leaves of two machines of two devices: packed takes the fewest
// leaves, spread one machine a leaf in turn, random a seeded order, explicit what it names.

#include "sim/runtime/jobs/cluster_placement.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace dtsim::runtime {
namespace {

using scenario::JobPlacement;

/// Four leaf switches under one spine; each leaf holds two machines of two devices, each device linked to the leaf.
topology::TopologyGraph two_level_tree() {
  topology::TopologyGraph graph;
  const auto spine = graph.add_switch("spine");
  for (int leaf = 0; leaf < 4; ++leaf) {
    const auto s = graph.add_switch(fmt::format("leaf{}", leaf));
    graph.add_link(s, spine, core::BytesPerSecond(1e9), core::Seconds(1e-6), "fabric");
    for (int machine = 2 * leaf; machine < 2 * leaf + 2; ++machine) {
      for (int device = 0; device < 2; ++device) {
        const auto w = graph.add_worker(fmt::format("m{}d{}", machine, device), machine);
        graph.add_link(w, s, core::BytesPerSecond(1e9), core::Seconds(1e-6), "nic");
      }
    }
  }
  return graph;
}

TEST(ClusterPlacement, MachinesAreGroupedByTheLeafThatJoinsThem) {
  const ClusterPlacement cluster(two_level_tree());
  EXPECT_EQ(cluster.group_of_machine(0), cluster.group_of_machine(1));
  EXPECT_NE(cluster.group_of_machine(1), cluster.group_of_machine(2));
}

TEST(ClusterPlacement, PackedFillsOneMachineThenOneLeafBestFit) {
  ClusterPlacement cluster(two_level_tree());
  EXPECT_EQ(*cluster.choose(2, JobPlacement::packed, {}, 1), (std::vector<int>{0, 1}));
  cluster.take({0});
  // One device left on machine 0: the best fit for one device.
  EXPECT_EQ(*cluster.choose(1, JobPlacement::packed, {}, 1), (std::vector<int>{1}));
  // Three devices: leaf 0 has three free (1, 2, 3), the fewest that fit; whole machines first.
  EXPECT_EQ(*cluster.choose(3, JobPlacement::packed, {}, 1), (std::vector<int>{2, 3, 1}));
  EXPECT_EQ(cluster.choose(16, JobPlacement::packed, {}, 1), std::nullopt);
}

TEST(ClusterPlacement, SpreadTakesAMachineFromEachLeafInTurn) {
  const ClusterPlacement cluster(two_level_tree());
  EXPECT_EQ(*cluster.choose(6, JobPlacement::spread, {}, 1), (std::vector<int>{0, 1, 4, 5, 8, 9}));
}

TEST(ClusterPlacement, RandomFollowsTheSeedAndExplicitNeedsItsHostsFree) {
  ClusterPlacement cluster(two_level_tree());
  EXPECT_EQ(cluster.choose(4, JobPlacement::random, {}, 5), cluster.choose(4, JobPlacement::random, {}, 5));
  EXPECT_NE(cluster.choose(8, JobPlacement::random, {}, 5), cluster.choose(8, JobPlacement::random, {}, 6));
  EXPECT_EQ(*cluster.choose(2, JobPlacement::explicit_hosts, {7, 3}, 1), (std::vector<int>{7, 3}));
  cluster.take({3});
  EXPECT_EQ(cluster.choose(2, JobPlacement::explicit_hosts, {7, 3}, 1), std::nullopt);
  cluster.give_back({3});
  EXPECT_EQ(cluster.free_devices(), 16);
}

TEST(ExplicitRanks, ReportsEveryBadHostOfAJobAndKeepsTheOthers) {
  scenario::JobSpec job;
  job.name = "a";
  job.index = 2;
  // One host a column: a host named twice, one the cluster lacks, a switch, and two good ones.
  int column = 8;
  for (const char* host : {"m0d1", "m0d1", "m9d9", "leaf1", "m1d0"}) {
    job.hosts.push_back({host, core::SourcePosition("jobs.yaml", 4, column)});
    column += 8;
  }
  core::DiagnosticSink sink;
  EXPECT_EQ(explicit_ranks(job, two_level_tree(), sink), (std::vector<int>{1, 2}));
  ASSERT_EQ(sink.size(), 3U);
  EXPECT_EQ(sink.diagnostics()[0].format(),
            "jobs.yaml:4:16: error: jobs[2].hosts: job 'a' names host 'm0d1' twice\n"
            "  hint: a worker runs one rank of one job: name each host once");
  EXPECT_EQ(sink.diagnostics()[1].message, "job 'a' names host 'm9d9', which is not a worker of the cluster");
  EXPECT_EQ(sink.diagnostics()[1].hint, "the workers are m0d0 to m7d1 (`dtsim explain` lists them)");
  EXPECT_EQ(sink.diagnostics()[2].message,
            "job 'a' names host 'leaf1', which is a switch, not a worker of the cluster");
  EXPECT_THROW(static_cast<void>(explicit_ranks(job, two_level_tree())), core::InputError);
}

/// Two pods under a core switch, each an aggregation switch over two leaves of two single-device hosts.
topology::TopologyGraph two_pods() {
  topology::TopologyGraph graph;
  const auto core = graph.add_switch("core");
  int host = 0;
  for (int pod = 0; pod < 2; ++pod) {
    const auto aggregation = graph.add_switch(fmt::format("pod{}", pod));
    graph.add_link(aggregation, core, core::BytesPerSecond(1e9), core::Seconds(1e-6), "core");
    for (int leaf = 0; leaf < 2; ++leaf) {
      const auto edge = graph.add_switch(fmt::format("pod{}-edge{}", pod, leaf));
      graph.add_link(edge, aggregation, core::BytesPerSecond(1e9), core::Seconds(1e-6), "aggregation");
      for (int i = 0; i < 2; ++i, ++host) {
        graph.add_link(graph.add_worker(fmt::format("w{}", host)), edge, core::BytesPerSecond(1e9), core::Seconds(1e-6), "edge");
      }
    }
  }
  return graph;
}

TEST(ClusterPlacement, PackedKeepsAJobLargerThanALeafInOnePod) {
  ClusterPlacement cluster(two_pods());
  // Pod 0 keeps 3 free devices (leaf 0: w0 and w1; leaf 1: w3), pod 1 all 4: three devices fit pod 0 best, where
  // the leaves with the most free devices first would take w0, w1 and a host of pod 1.
  cluster.take({2});
  EXPECT_EQ(*cluster.choose(3, JobPlacement::packed, {}, 1), (std::vector<int>{0, 1, 3}));
}

}  // namespace
}  // namespace dtsim::runtime
