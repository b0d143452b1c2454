// Training across datacenters: the `sites` topology's wide-area links carry what the closed form of a ring
// allreduce says crosses them, DiLoCo crosses them once every H steps, and DiLoCo with an outer learning rate
// of 1 and no momentum is local SGD's averaging.

#include "datacenter_scenarios.hpp"
#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

TEST(Datacenters, ASitesFatTreeCarriesItsWideAreaBytesThroughItsBorderAndItsOversubscriptionSlowsIt) {
  const std::filesystem::path folder = fresh_output_folder("datacenters-fat-tree");
  const auto fat_trees = [](double oversubscription) {
    return fmt::format(
        "[{{name: a, workers: 4, fabric: fat_tree, arity: 2, oversubscription: {0}}}, "
        "{{name: b, workers: 4, fabric: fat_tree, arity: 2, oversubscription: {0}}}]",
        oversubscription);
  };
  const nlohmann::json full = run_result(folder, "full", two_sites("{strategy: bsp}", fat_trees(1)));
  // Every byte between the sites leaves one site's border and enters the other's: the border links carry twice
  // the wide area's bytes, and nothing inside a site goes up to its border.
  const nlohmann::json& classes = full["bytes_by_link_class"];
  EXPECT_EQ(classes["border"].get<double>(), 2.0 * classes["wan"].get<double>());
  EXPECT_GT(classes["site/spine"].get<double>(), 0.0);
  // The wide area's bytes are the plain sites' (the ring's order is the ranks').
  const nlohmann::json plain = run_result(folder, "plain", two_sites("{strategy: bsp}"));
  EXPECT_EQ(classes["wan"], plain["bytes_by_link_class"]["wan"]);
  // One site of 4 workers under leaves of 2, BSP over 10 Mbit/s links: each ring step has two messages between
  // the leaves, through a spine. At 1:1 (2 spines) an uplink is as wide as a port's link; at 4:1 one spine's
  // uplink is half as wide, and each of the 24 steps' 6 ring steps takes a chunk (a quarter of the 1,210
  // gradients, 4 bytes each) / 10 Mbit/s longer.
  const auto one_site = [](double oversubscription) {
    return digits_at_sites(
        "{strategy: bsp}",
        fmt::format("[{{name: a, workers: 4, fabric: fat_tree, arity: 2, oversubscription: {}}}]", oversubscription), 4,
        R"({bandwidth: "10Mbps", latency: "5us"})");
  };
  const nlohmann::json wide = run_result(folder, "wide", one_site(1));
  const nlohmann::json thin = run_result(folder, "thin", one_site(4));
  ASSERT_EQ(wide["parameters"].get<double>(), 1210.0);
  const double slower_s = 24.0 * 6.0 * (1210.0 * 4.0 / 4.0) / 1.25e6;
  EXPECT_NEAR((thin["simulated_s"].get<double>() - wide["simulated_s"].get<double>()) / slower_s, 1.0, 0.01);
  EXPECT_EQ(wide["bytes_by_link_class"]["border"].get<double>(), 0.0);  // nothing goes up to the border
}

TEST(Datacenters, ASiteOfAnyTopologyReachesTheWideAreaThroughItsGatewayAndTimesItsOwnHops) {
  const std::filesystem::path folder = fresh_output_folder("datacenters-any-fabric");
  // Two nodes of 2 devices on rails, and a 2 x 2 torus whose wide-area traffic leaves and enters through its first
  // host, its gateway.
  const nlohmann::json mixed =
      run_result(folder, "mixed",
                 two_sites("{strategy: bsp}",
                           "[{name: a, workers: 4, per_node: 2, node_link: {bandwidth: \"2400Gbps\", "
                           "latency: \"1us\"}, fabric: rail, arity: 2}, "
                           "{name: b, workers: 4, fabric: torus, dimensions: [2, 2]}]"));
  const nlohmann::json& classes = mixed["bytes_by_link_class"];
  EXPECT_EQ(classes["border"].get<double>(), 2.0 * classes["wan"].get<double>());
  EXPECT_GT(classes["site/rail"].get<double>(), 0.0);
  EXPECT_GT(classes["site/torus/x"].get<double>(), 0.0);
  // The wide area's bytes are the plain sites': the fabric changes the way inside a site, not what crosses.
  const nlohmann::json plain = run_result(folder, "plain", two_sites("{strategy: bsp}"));
  EXPECT_EQ(classes["wan"], plain["bytes_by_link_class"]["wan"]);
  // One site of 4 workers, BSP, 1 ms links: a ring step's message crosses one ring link, or two through the
  // site's switch (up and down); the bandwidth each gets is the same. Each of the 24 steps' 6 ring steps is
  // one link's latency shorter on the ring.
  const auto one_site = [](const std::string& fabric) {
    return digits_at_sites("{strategy: bsp}", fmt::format("[{{name: a, workers: 4, fabric: {}}}]", fabric), 4,
                           R"({bandwidth: "1Gbps", latency: "1ms"})");
  };
  const nlohmann::json star = run_result(folder, "star", one_site("switch"));
  const nlohmann::json ring = run_result(folder, "ring", one_site("ring"));
  EXPECT_NEAR(star["simulated_s"].get<double>() - ring["simulated_s"].get<double>(), 24.0 * 6.0 * 1e-3, 1e-9);
  EXPECT_EQ(ring["bytes_by_link_class"]["border"].get<double>(), 0.0);  // nothing goes to the border
}

TEST(Datacenters, TheWideAreaLinksCarryTheRingsTwoCrossingsAndDilocoOneInH) {
  const std::filesystem::path folder = fresh_output_folder("datacenters-bytes");
  const nlohmann::json bsp = run_result(folder, "bsp", two_sites("{strategy: bsp}"));
  // A ring over ranks 0-7 crosses between the sites twice (3 to 4, 7 to 0), one direction each; every ring
  // edge carries 2 (p - 1) / p of the gradients a step: 64 x 16 + 16 + 16 x 10 + 10 = 1,210 values of 4 bytes.
  const double parameters = 64.0 * 16 + 16 + 16 * 10 + 10;
  ASSERT_EQ(bsp["parameters"].get<double>(), parameters);
  const double per_step = 2.0 * (2.0 * 7.0 / 8.0 * parameters * 4.0);
  EXPECT_NEAR(bsp["bytes_by_link_class"]["wan"].get<double>() / 24.0 / per_step, 1.0, 0.005);
  // Per site: its workers, and what left it over the wide area, the two adding up to the wide-area links' bytes.
  ASSERT_EQ(bsp["sites"].size(), 2U);
  EXPECT_EQ(bsp["sites"][0]["name"], "a");
  EXPECT_EQ(bsp["sites"][1]["workers"], 4);
  EXPECT_EQ(bsp["sites"][0]["wan_bytes_out"].get<double>() + bsp["sites"][1]["wan_bytes_out"].get<double>(),
            bsp["bytes_by_link_class"]["wan"].get<double>());
  // A step is the ocean's latencies: the workers spend their time moving bytes or waiting for them.
  EXPECT_GT(bsp["sites"][0]["communication_s"].get<double>() + bsp["sites"][0]["wait_s"].get<double>(),
            0.99 * bsp["simulated_s"].get<double>());
  const nlohmann::json diloco = run_result(folder, "diloco", two_sites("{strategy: diloco, inner_steps: 4}"));
  // The outer gradient is as large as the gradients, and crosses once every 4 steps.
  EXPECT_NEAR(
      diloco["bytes_by_link_class"]["wan"].get<double>() * 4.0 / bsp["bytes_by_link_class"]["wan"].get<double>(), 1.0,
      1e-9);
  EXPECT_LT(diloco["simulated_s"].get<double>() * 3.0, bsp["simulated_s"].get<double>());
}

TEST(Datacenters, DilocoWithAnOuterRateOfOneAndNoMomentumIsLocalSgd) {
  const std::filesystem::path folder = fresh_output_folder("datacenters-local-sgd");
  const nlohmann::json local = run_result(folder, "local", two_sites("{strategy: local_sgd, local_steps: 4}"));
  const nlohmann::json diloco = run_result(
      folder, "diloco", two_sites("{strategy: diloco, inner_steps: 4, outer_learning_rate: 1, outer_momentum: 0}"));
  // The global parameters less the mean outer gradient are the workers' mean, up to float rounding.
  EXPECT_NEAR(diloco["final"]["val_loss"].get<double>(), local["final"]["val_loss"].get<double>(), 1e-5);
  EXPECT_NE(diloco["final"]["val_loss"].get<double>(), local["initial"]["val_loss"].get<double>());
  EXPECT_EQ(diloco["bytes_sent"], local["bytes_sent"]);
  // The paper's outer step (0.7, Nesterov 0.9) is another optimizer: another loss.
  const nlohmann::json paper = run_result(folder, "paper", two_sites("{strategy: diloco, inner_steps: 4}"));
  EXPECT_GT(std::abs(paper["final"]["val_loss"].get<double>() - local["final"]["val_loss"].get<double>()), 1e-3);
}

TEST(Datacenters, HierarchicalDilocoStepsEachSiteTogetherAndCrossesOnlyAtOuterSteps) {
  const std::filesystem::path folder = fresh_output_folder("datacenters-hierarchical");
  const std::string eight_sites =
      "[{name: s0, workers: 1}, {name: s1, workers: 1}, {name: s2, workers: 1}, {name: s3, workers: 1}, "
      "{name: s4, workers: 1}, {name: s5, workers: 1}, {name: s6, workers: 1}, {name: s7, workers: 1}]";
  // A site of one worker steps alone: the same run as DiLoCo's own workers, to the last bit.
  const nlohmann::json alone =
      run_result(folder, "alone", two_sites("{strategy: diloco, inner_steps: 4}", eight_sites));
  const nlohmann::json sites_of_one = run_result(
      folder, "sites-of-one", two_sites("{strategy: diloco, inner_steps: 4, inner_sync: site}", eight_sites));
  EXPECT_EQ(sites_of_one["final"], alone["final"]);
  EXPECT_EQ(sites_of_one["bytes_by_link_class"], alone["bytes_by_link_class"]);
  // Two sites of four: the gradients are averaged inside each site every step (site links only), and the sites
  // cross the wide area at the outer steps alone, as many bytes as DiLoCo's own workers send there.
  const nlohmann::json workers = run_result(folder, "workers", two_sites("{strategy: diloco, inner_steps: 4}"));
  const nlohmann::json by_site =
      run_result(folder, "by-site", two_sites("{strategy: diloco, inner_steps: 4, inner_sync: site}"));
  EXPECT_EQ(by_site["bytes_by_link_class"]["wan"], workers["bytes_by_link_class"]["wan"]);
  EXPECT_GT(by_site["bytes_by_link_class"]["site"].get<double>(),
            3.0 * workers["bytes_by_link_class"]["site"].get<double>());
  EXPECT_NE(by_site["final"]["val_loss"], workers["final"]["val_loss"]);
  // Without sites there is nothing to step together.
  std::string ring = two_sites("{strategy: diloco, inner_steps: 4, inner_sync: site}");
  ring.replace(ring.find("  kind: sites"), 13, "  kind: ring\n");
  ring.erase(ring.find("  sites: ["), ring.find("model:") - ring.find("  sites: ["));
  std::ofstream(folder / "ring.yaml") << ring;
  const CommandResult refused = run_dtsim(fmt::format("validate {}", (folder / "ring.yaml").string()));
  EXPECT_EQ(refused.exit_status, 2);
  EXPECT_NE(refused.err.find("training.sync.inner_sync: inner_sync: site averages each datacenter's gradients every "
                             "step, and the 'ring' topology has no sites"),
            std::string::npos)
      << refused.err << ring;
}

TEST(Datacenters, AnOuterStepTakesTheRingsClosedFormOverTheWideAreaLink) {
  const std::filesystem::path folder = fresh_output_folder("datacenters-outer-step");
  // Two outer steps against one, over the same eight inner steps: the difference is one outer step.
  const nlohmann::json two = run_result(folder, "two", gpt2_two_sites("{strategy: diloco, inner_steps: 4}", 8));
  const nlohmann::json one = run_result(folder, "one", gpt2_two_sites("{strategy: diloco, inner_steps: 8}", 8));
  const double outer_s = two["simulated_s"].get<double>() - one["simulated_s"].get<double>();
  // A ring over 16 ranks in rank order crosses between the sites at 7 to 8 and 15 to 0, one direction each: each
  // of its 2 (p - 1) steps waits for a chunk of the parameters (BF16 on the wire: communication_precision's
  // auto under bf16) to cross the wide-area link, behind the path's three latencies. The outer step's own
  // operations (8 a parameter) take microseconds.
  const double parameters = two["parameters"].get<double>();
  const double chunk_bytes = parameters * 2.0 / 16.0;
  const double step_s = 2e-6 + 40e-3 + 2e-6 + chunk_bytes / 1.25e9;
  EXPECT_NEAR(outer_s / (2.0 * 15.0 * step_s), 1.0, 1e-4) << outer_s << " s";
}

TEST(Datacenters, SitesThatDoNotHoldTheClusterAreRefused) {
  const std::filesystem::path folder = fresh_output_folder("datacenters-refused");
  // What `dtsim validate` says of two sites whose `sites` are `sites`, refused.
  const auto refusal = [&](const std::string& name, const std::string& sites) {
    std::ofstream(folder / (name + ".yaml")) << two_sites("{strategy: bsp}", sites);
    const CommandResult result = run_dtsim(fmt::format("validate {}", (folder / (name + ".yaml")).string()));
    EXPECT_EQ(result.exit_status, 2) << name;
    return result.err;
  };
  const std::string short_of = refusal("short", "[{name: a, workers: 4}, {name: b, workers: 3}]");
  EXPECT_NE(short_of.find("short.yaml:7:10: error: topology.sites: the sites hold 7 workers, and the cluster has 8\n"
                          "  hint: make the sites' workers add up to cluster.workers"),
            std::string::npos)
      << short_of;
  const std::string twice = refusal("twice", "[{name: a, workers: 4}, {name: a, workers: 4}]");
  EXPECT_NE(twice.find("error: topology.sites[1].name: site 'a' is named twice"), std::string::npos) << twice;
  // A site of multi-device nodes holds whole nodes, and says how a node's devices are linked.
  const std::string nodes = refusal("nodes",
                                    "[{name: a, workers: 4, per_node: 3, node_link: {bandwidth: "
                                    "\"2400Gbps\", latency: \"1us\"}}, {name: b, workers: 4}]");
  EXPECT_NE(nodes.find("error: topology.sites[0].per_node: site 'a' holds 4 workers, not whole nodes of 3\n"
                       "  hint: make the site's workers a multiple of per_node"),
            std::string::npos)
      << nodes;
  const std::string bare = refusal("bare", "[{name: a, workers: 4, per_node: 2}, {name: b, workers: 4}]");
  EXPECT_NE(bare.find("error: topology.sites[0].node_link: a site of multi-device nodes needs the link inside a node"),
            std::string::npos)
      << bare;
  // A site's fabric is checked by its topology's own checks; with per_node its hosts are the site's nodes.
  const std::string torus = refusal("torus",
                                    "[{name: a, workers: 4, fabric: ring}, {name: b, workers: 4, per_node: 2, "
                                    "node_link: {bandwidth: \"2400Gbps\", latency: \"1us\"}, fabric: torus, "
                                    "dimensions: [2, 2]}]");
  EXPECT_NE(torus.find("error: topology.sites[1].dimensions: site 'b' (its 2 nodes are the fabric's hosts): the "
                       "torus holds 4 hosts but the site has 2 workers\n"),
            std::string::npos)
      << torus;
  const std::string rails = refusal("rails", "[{name: a, workers: 4, fabric: rail}, {name: b, workers: 4}]");
  EXPECT_NE(rails.find("error: topology.sites[0].fabric: site 'a': a rail-optimized fabric puts device d of every "
                       "node on rail d, and the site's workers are no nodes\n"
                       "  hint: add per_node (the devices a node holds) and node_link"),
            std::string::npos)
      << rails;
  std::ofstream(folder / "momentum.yaml") << two_sites("{strategy: diloco, inner_steps: 4, outer_momentum: 1}");
  const CommandResult momentum = run_dtsim(fmt::format("validate {}", (folder / "momentum.yaml").string()));
  EXPECT_EQ(momentum.exit_status, 2);
  EXPECT_NE(momentum.err.find("training.sync.outer_momentum: the outer momentum must be below 1"), std::string::npos)
      << momentum.err;
}

}  // namespace
}  // namespace dtsim::testing
