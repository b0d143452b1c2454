// What a failed switch takes down, on a hand-built two-switch network: workers 0 and 1 under switch s0,
// workers 2 and 3 under s1, the switches joined by one link.

#include "sim/topology/reachability.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

namespace dtsim::topology {
namespace {

TopologyGraph two_switches() {
  TopologyGraph graph;
  for (int w = 0; w < 4; ++w) graph.add_worker("w" + std::to_string(w));
  const NodeId s0 = graph.add_switch("s0");
  const NodeId s1 = graph.add_switch("s1");
  const core::BytesPerSecond rate(1e9);
  const core::Seconds delay(1e-6);
  graph.add_link(graph.workers()[0], s0, rate, delay, "test");
  graph.add_link(graph.workers()[1], s0, rate, delay, "test");
  graph.add_link(graph.workers()[2], s1, rate, delay, "test");
  graph.add_link(graph.workers()[3], s1, rate, delay, "test");
  graph.add_link(s0, s1, rate, delay, "test");
  return graph;
}

/// The pairs of workers still joined once the switch's links are down.
std::set<std::pair<int, int>> joined_pairs(const TopologyGraph& graph, const std::vector<bool>& down) {
  const std::vector<std::size_t> group = groups_without(graph, down);
  std::set<std::pair<int, int>> out;
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) {
      if (group[graph.workers()[a]] == group[graph.workers()[b]]) out.insert({a, b});
    }
  }
  return out;
}

TEST(Reachability, AFailedSwitchTakesDownItsLinksTheHostsItAloneServesAndEveryRouteThroughIt) {
  const TopologyGraph graph = two_switches();
  const NodeId s0 = *find_switch(graph, "s0");
  EXPECT_FALSE(find_switch(graph, "w0").has_value()) << "a worker is not a switch";
  const std::vector<std::size_t> links = links_at(graph, s0);
  ASSERT_EQ(links.size(), 3U);
  std::set<std::string> names;
  for (const std::size_t id : links) names.insert(graph.link(id).name);
  EXPECT_EQ(names, (std::set<std::string>{"w0--s0", "w1--s0", "s0--s1"}));

  std::vector<bool> down(graph.link_count(), false);
  EXPECT_TRUE(hosts_cut_off(graph, down).empty());
  EXPECT_EQ(joined_pairs(graph, down).size(), 6U);
  for (const std::size_t id : links) down[id] = true;
  const std::vector<NodeId> cut = hosts_cut_off(graph, down);
  EXPECT_EQ(cut, (std::vector<NodeId>{graph.workers()[0], graph.workers()[1]}));
  // w0-w1 went through s0 too: only w2-w3 survive, through s1.
  EXPECT_EQ(joined_pairs(graph, down), (std::set<std::pair<int, int>>{{2, 3}}));
}

TEST(Reachability, TheSwitchBetweenTheTwoHalvesCarriesOnlyTheRoutesAcrossThem) {
  const TopologyGraph graph = two_switches();
  std::vector<bool> down(graph.link_count(), false);
  down[4] = true;  // s0--s1
  EXPECT_EQ(joined_pairs(graph, down), (std::set<std::pair<int, int>>{{0, 1}, {2, 3}}));
  // Two halves of two hosts each: the first host's half is kept, the other is cut off.
  EXPECT_EQ(hosts_cut_off(graph, down), (std::vector<NodeId>{graph.workers()[2], graph.workers()[3]}));
}

}  // namespace
}  // namespace dtsim::topology
