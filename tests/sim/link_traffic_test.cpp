// Bytes per link from real training runs: every message adds its size to each link of its route, so the
// links together carry the bytes sent times the hops each message takes.

#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/topology/link_traffic.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dtsim {
namespace {

std::string traffic_scenario(const std::string& topology, const std::string& architecture) {
  return fmt::format(R"(name: traffic
seed: 3
cluster:
  workers: 4
  device: {{peak_flops: "1TFLOPS", efficiency: 0.5}}
topology:
  kind: {}
  link: {{bandwidth: "10Gbps", latency: "5us"}}
model: {{kind: logistic_regression}}
data: {{kind: synthetic_classification, samples: 1000, features: 15, label_noise: 0.3}}
training:
  batch: {{per_worker: 8}}
  optimizer: {{learning_rate: 0.1}}
  architecture: {{kind: {}}}
  stop: {{iterations: 10}}
)",
                     topology, architecture);
}

metrics::RunRecord simulate_traffic(const std::string& text) {
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), text, "traffic.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const auto setup = checks::resolve_scenario(scenario, registries);
  return runtime::run_training(scenario, setup);
}

double link_bytes(const metrics::RunRecord& record, const std::string& link_class = "") {
  double total = 0.0;
  for (const auto& link : record.links) total += link_class.empty() || link.link_class == link_class ? link.bytes : 0.0;
  return total;
}

// A ring allreduce on a ring sends only to the next rank, one hop away: each link carries, in its forward
// direction only, exactly what its first end sent (16 floats in 4 chunks of 4: 2 x 3 messages of 16 bytes
// per iteration).
TEST(LinkTraffic, RingAllreduceOnARingUsesEachLinkForwardOnly) {
  const metrics::RunRecord record = simulate_traffic(traffic_scenario("ring", "allreduce"));
  ASSERT_EQ(record.links.size(), 8U);
  for (std::size_t i = 0; i < record.links.size(); i += 2) {
    EXPECT_EQ(record.links[i].link_class, "ring");
    EXPECT_DOUBLE_EQ(record.links[i].bytes, 10 * 2 * 3 * 16.0) << record.links[i].name;
    EXPECT_DOUBLE_EQ(record.links[i + 1].bytes, 0.0) << record.links[i + 1].name;
  }
  EXPECT_DOUBLE_EQ(link_bytes(record), record.total_bytes_sent());
}

// Through a parameter server every message crosses two links (worker -- switch -- server): the worker
// links carry the pushes up and the replies down, the server link both.
TEST(LinkTraffic, ParameterServerMessagesCrossTwoLinks) {
  const metrics::RunRecord record = simulate_traffic(traffic_scenario("parameter_server", "parameter_server"));
  EXPECT_DOUBLE_EQ(link_bytes(record), 2.0 * record.total_bytes_sent());
  EXPECT_DOUBLE_EQ(link_bytes(record, "worker"), record.total_bytes_sent());
  EXPECT_DOUBLE_EQ(link_bytes(record, "server"), record.total_bytes_sent());
  for (const auto& link : record.links) {
    if (link.link_class == "worker" && link.from == "worker-2") {
      EXPECT_DOUBLE_EQ(link.bytes, record.hosts[2].bytes_sent);
    }
  }
}

TEST(LinkTraffic, AddsEachMessageToEveryLinkOfItsRouteInItsDirection) {
  topology::TopologyGraph graph;
  const auto a = graph.add_worker("a");
  const auto b = graph.add_worker("b");
  const auto hub = graph.add_switch("hub");
  graph.add_link(a, hub, core::BytesPerSecond(1e9), core::Seconds(1e-6), "leaf");
  graph.add_link(hub, b, core::BytesPerSecond(1e9), core::Seconds(1e-6), "leaf");
  const topology::RoutingTable routes(graph);
  topology::LinkTraffic traffic(graph, routes);
  traffic.add(0, 1, 100.0);
  traffic.add(1, 0, 7.0);
  traffic.add(1, 1, 1000.0);  // to itself: no link
  EXPECT_DOUBLE_EQ(traffic.forward(0), 100.0);
  EXPECT_DOUBLE_EQ(traffic.forward(1), 100.0);
  EXPECT_DOUBLE_EQ(traffic.backward(0), 7.0);
  EXPECT_DOUBLE_EQ(traffic.backward(1), 7.0);
}

}  // namespace
}  // namespace dtsim
