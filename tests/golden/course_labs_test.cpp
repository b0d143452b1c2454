// Every lab of docs/course/ run as its handout says, and the observation it leads the student to checked
// from the results: a lab can never silently stop showing what it teaches. The figures quoted in the lab
// pages are the ones these runs print (RecordProperty); the assertions hold them to the observation, not
// to the digit.

#include "run_dtsim.hpp"

#include "analysis/report_data.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <tuple>

namespace dtsim::testing {
namespace {

/// A result folder's file, after `dtsim run` (or `dtsim scale`) wrote it.
struct Lab {
  std::filesystem::path folder;

  [[nodiscard]] nlohmann::json summary(const std::string& point = "") const {
    return nlohmann::json::parse(read_file((point.empty() ? folder : folder / point) / "summary.json"));
  }
  [[nodiscard]] double result(const std::string& key, const std::string& point = "") const {
    return summary(point)["result"][key].get<double>();
  }
};

Lab run_lab(const std::string& scenario, const std::string& command = "run") {
  const auto folder = fresh_output_folder("course-" + scenario);
  const CommandResult run = run_dtsim(command + " " + scenario_path("course/" + scenario + ".yaml").string() +
                                      " -q -o " + folder.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return Lab{folder};
}

/// A CSV file's rows, as the report reads them: numbers as numbers, text as strings.
nlohmann::json read_csv(const std::filesystem::path& path) { return analysis::csv_rows(read_file(path)); }

/// sweep.csv's `column` for each point, by point name.
std::map<std::string, double> sweep_column(const Lab& lab, const std::string& column) {
  std::map<std::string, double> out;
  for (const auto& row : read_csv(lab.folder / "sweep.csv")) out[row.at("point")] = row.at(column).get<double>();
  return out;
}

double time_to_target(const Lab& lab) {
  const nlohmann::json summary = lab.summary();
  const auto& target = summary["result"]["time_to_target"];
  EXPECT_TRUE(target["reached"].get<bool>()) << lab.folder;
  return target["reached"].get<bool>() ? target["sim_time_s"].get<double>() : -1.0;
}

void record(const std::string& key, double value) { ::testing::Test::RecordProperty(key, std::to_string(value)); }

// Lab 1: scaling up by 4 gives 4x; scaling out by 4 gives less (the allreduce), with the same learning.
TEST(CourseLabs, ScalingUpGivesTheFullFactorAndScalingOutLessOfIt) {
  const Lab lab = run_lab("01-scale-up-or-out");
  const auto time = sweep_column(lab, "simulated_s");
  const auto loss = sweep_column(lab, "final_val_loss");
  const double base = time.at("workers=1,peak_flops=10GFLOPS");
  const double up = base / time.at("workers=1,peak_flops=40GFLOPS");
  const double out = base / time.at("workers=4,peak_flops=10GFLOPS");
  EXPECT_NEAR(up, 4.0, 0.01);
  EXPECT_GT(out, 2.5);
  EXPECT_LT(out, 3.7);
  EXPECT_NEAR(loss.at("workers=4,peak_flops=10GFLOPS"), loss.at("workers=1,peak_flops=10GFLOPS"), 0.01);
  record("scale_up_speedup", up);
  record("scale_out_speedup", out);
}

// Lab 2: data parallelism would be fastest but does not fit; of the splits that fit, the hybrid is fastest.
TEST(CourseLabs, OnlyModelParallelSplitsFitAndTheHybridIsTheFastestOfThem) {
  std::map<std::string, double> iteration;
  std::map<std::string, bool> fits;
  std::map<std::string, double> most_bytes;
  for (const std::string name : {"02-data-parallel", "02-tensor", "02-pipeline", "02-hybrid"}) {
    const Lab lab = run_lab(name);
    const nlohmann::json summary = lab.summary();
    iteration[name] = summary["result"]["simulated_s"].get<double>() / summary["result"]["iterations"].get<double>();
    fits[name] = true;
    for (const auto& device : summary["result"]["memory"]) {
      fits[name] = fits[name] && device["fits"].get<bool>();
      most_bytes[name] = std::max(most_bytes[name], device["total_bytes"].get<double>());
    }
    record(name + "_iteration_s", iteration[name]);
    record(name + "_most_memory_gib", most_bytes[name] / (1 << 30));
  }
  EXPECT_FALSE(fits["02-data-parallel"]);
  EXPECT_TRUE(fits["02-tensor"] && fits["02-pipeline"] && fits["02-hybrid"]);
  EXPECT_LT(iteration["02-data-parallel"], iteration["02-hybrid"]);
  EXPECT_LT(iteration["02-hybrid"], iteration["02-tensor"]);
  EXPECT_LT(iteration["02-tensor"], iteration["02-pipeline"]);
  EXPECT_LT(most_bytes["02-pipeline"], most_bytes["02-hybrid"]);
}

// Lab 3: at large sizes the ring allreduce's time is almost flat in the workers, the tree's grows with log p;
// at small sizes the ring is latency-bound and grows with p.
TEST(CourseLabs, TheRingIsFlatInTheWorkersAtLargeSizesAndLatencyBoundAtSmallOnes) {
  const Lab lab = run_lab("03-collectives");
  const auto time = sweep_column(lab, "simulated_s");
  const double ring_growth = time.at("algorithm=ring,workers=32") / time.at("algorithm=ring,workers=4");
  EXPECT_LT(ring_growth, 1.25);
  const double tree_step_1 = time.at("algorithm=tree,workers=16") - time.at("algorithm=tree,workers=8");
  const double tree_step_2 = time.at("algorithm=tree,workers=32") - time.at("algorithm=tree,workers=16");
  EXPECT_NEAR(tree_step_2, tree_step_1, 0.05 * tree_step_1);
  EXPECT_GT(time.at("algorithm=tree,workers=32"), 3.0 * time.at("algorithm=ring,workers=32"));
  record("ring_32_over_4", ring_growth);

  const auto small = [](int ranks) {
    const CommandResult run = run_dtsim("collective --topology ring --algo ring --bandwidth 10Gbps --latency 2us --json "
                                        "--sizes 1KiB:1KiB --ranks " + std::to_string(ranks));
    EXPECT_EQ(run.exit_status, 0) << run.err;
    const nlohmann::json rows = nlohmann::json::parse(run.out);
    return rows["rows"][0]["time_s"].get<double>();
  };
  const double small_growth = small(32) / small(4);
  EXPECT_GT(small_growth, 8.0);
  record("ring_1KiB_32_over_4", small_growth);
}

// Lab 4: one server shard is bandwidth-bound at the server; shards divide the time; allreduce beats them.
TEST(CourseLabs, OneServerShardIsBandwidthBoundAtTheServer) {
  const Lab servers = run_lab("04-parameter-server");
  const Lab ring = run_lab("04-allreduce");
  const auto time = sweep_column(servers, "simulated_s");
  double server_busy = 0.0;
  double worker_busy = 0.0;
  for (const auto& row : read_csv(servers.folder / "shards=1" / "links.csv")) {
    if (row.at("class") == "server") server_busy += row.at("utilization").get<double>();
    if (row.at("link") == "worker-0--switch-0") worker_busy += row.at("utilization").get<double>();
  }
  EXPECT_GT(server_busy, 0.95);  // its two directions together: busy the whole run, one way or the other
  EXPECT_LT(worker_busy, 0.2);
  EXPECT_NEAR(time.at("shards=1") / time.at("shards=2"), 2.0, 0.1);
  EXPECT_NEAR(time.at("shards=1") / time.at("shards=4"), 4.0, 0.2);
  EXPECT_LT(ring.result("simulated_s"), time.at("shards=4"));
  record("server_link_busy", server_busy);
  record("one_shard_over_allreduce", time.at("shards=1") / ring.result("simulated_s"));
}

// Lab 5: under random slowdowns SSP(3) reaches the target loss before BSP, async before both, with staleness.
TEST(CourseLabs, UnderRandomSlowdownsSspReachesTheTargetBeforeBspAndAsyncFirst) {
  const Lab bsp = run_lab("05-bsp");
  const Lab ssp = run_lab("05-ssp");
  const Lab async = run_lab("05-async");
  const double t_bsp = time_to_target(bsp);
  const double t_ssp = time_to_target(ssp);
  const double t_async = time_to_target(async);
  EXPECT_LT(t_ssp, 0.8 * t_bsp);
  EXPECT_LT(t_async, t_ssp);
  EXPECT_EQ(bsp.summary()["result"]["staleness"]["max"].get<int>(), 0);
  EXPECT_EQ(ssp.summary()["result"]["staleness"]["max"].get<int>(), 3);
  EXPECT_GT(async.summary()["result"]["staleness"]["max"].get<int>(), 3);
  record("bsp_time_to_target_s", t_bsp);
  record("ssp_time_to_target_s", t_ssp);
  record("async_time_to_target_s", t_async);
}

// Lab 6: with very stale gradients and a large learning rate, dividing the rate by the staleness learns better.
TEST(CourseLabs, StalenessAwareRatesRescueAsyncFromStaleGradients) {
  const Lab async = run_lab("06-async");
  const Lab aware = run_lab("06-staleness-aware");
  const double loss_async = async.summary()["result"]["final"]["val_loss"].get<double>();
  const double loss_aware = aware.summary()["result"]["final"]["val_loss"].get<double>();
  EXPECT_LT(loss_aware, 0.7 * loss_async);
  EXPECT_FALSE(async.summary()["result"]["time_to_target"]["reached"].get<bool>());
  EXPECT_TRUE(aware.summary()["result"]["time_to_target"]["reached"].get<bool>());
  record("async_final_val_loss", loss_async);
  record("staleness_aware_final_val_loss", loss_aware);
}

// Lab 7: sparse updates through the servers move a small fraction of the bytes, with the same learning.
TEST(CourseLabs, HybridMovesOnlyTheTouchedRows) {
  const Lab lab = run_lab("07-sparse-embeddings");
  const auto bytes = sweep_column(lab, "bytes_sent");
  const auto time = sweep_column(lab, "simulated_s");
  const auto loss = sweep_column(lab, "final_val_loss");
  EXPECT_LT(bytes.at("kind=hybrid"), 0.05 * bytes.at("kind=allreduce"));
  EXPECT_LT(time.at("kind=hybrid"), time.at("kind=allreduce"));
  EXPECT_LT(time.at("kind=allreduce"), time.at("kind=parameter_server"));
  EXPECT_NEAR(loss.at("kind=hybrid"), loss.at("kind=allreduce"), 1e-6);
  record("hybrid_bytes_share", bytes.at("kind=hybrid") / bytes.at("kind=allreduce"));
}

// Lab 8: over high-latency links gossip finishes far sooner than the ring allreduce and learns about as well.
TEST(CourseLabs, GossipOverSlowLinksFinishesSoonerAndLearnsAboutAsWell) {
  const Lab ring = run_lab("08-allreduce");
  const Lab gossip = run_lab("08-gossip");
  const double speedup = ring.result("simulated_s") / gossip.result("simulated_s");
  EXPECT_GT(speedup, 10.0);
  const double loss_ring = ring.summary()["result"]["final"]["val_loss"].get<double>();
  const double loss_gossip = gossip.summary()["result"]["final"]["val_loss"].get<double>();
  EXPECT_LT(loss_gossip, 1.05 * loss_ring);
  EXPECT_LT(time_to_target(gossip), time_to_target(ring));
  record("gossip_speedup", speedup);
}

// Lab 9: weak scaling keeps its efficiency; strong scaling loses it as each worker's share shrinks.
TEST(CourseLabs, WeakScalingKeepsItsEfficiencyAndStrongScalingLosesIt) {
  const auto folder = fresh_output_folder("course-09-scaling");
  const CommandResult run = run_dtsim("scale " + scenario_path("course/09-scaling.yaml").string() +
                                      " --workers 1,2,4,8,16 -q -o " + folder.string());
  ASSERT_EQ(run.exit_status, 0) << run.err;
  std::map<std::string, double> efficiency;
  for (const auto& row : read_csv(folder / "scaling.csv")) {
    efficiency[row.at("mode").get<std::string>() + std::to_string(row.at("workers").get<int>())] =
        row.at("efficiency").get<double>();
  }
  EXPECT_GT(efficiency.at("weak16"), 0.85);
  EXPECT_LT(efficiency.at("strong16"), 0.75);
  EXPECT_LT(efficiency.at("strong16"), efficiency.at("strong8"));
  record("weak_efficiency_16", efficiency.at("weak16"));
  record("strong_efficiency_16", efficiency.at("strong16"));
}

// Lab 10: a straggler makes BSP pay for waiting in energy, CO2 and money; local SGD saves communication energy.
TEST(CourseLabs, AStragglerMultipliesTheEnergyToTheTarget) {
  const Lab bsp = run_lab("10-energy");
  const Lab local = run_lab("10-energy-local-sgd");
  const auto energy = [](const Lab& lab, const std::string& point) { return lab.summary(point)["result"]["energy"]; };
  const nlohmann::json even = energy(bsp, "slowdown=1");
  const nlohmann::json slow = energy(bsp, "slowdown=4");
  const double ratio = slow["to_target_j"].get<double>() / even["to_target_j"].get<double>();
  EXPECT_GT(ratio, 2.0);
  EXPECT_GT(slow["waiting_share"].get<double>(), 0.2);
  EXPECT_LT(even["waiting_share"].get<double>(), 0.01);
  EXPECT_NEAR(slow["co2_kg"].get<double>() / even["co2_kg"].get<double>(),
              slow["total_j"].get<double>() / even["total_j"].get<double>(), 1e-9);
  EXPECT_LT(energy(local, "slowdown=1")["communication_j"].get<double>(), 0.5 * even["communication_j"].get<double>());
  EXPECT_LT(energy(local, "slowdown=1")["total_j"].get<double>(), even["total_j"].get<double>());
  record("energy_to_target_ratio", ratio);
}

// Lab 11: packed, two jobs run as they would alone; spread, their rings meet on the thin uplinks and each slows the
// other, while both learn exactly what they learn alone.
TEST(CourseLabs, SpreadJobsMeetOnTheUplinksAndSlowEachOtherWherePackedOnesDoNot) {
  const Lab lab = run_lab("11-placement");
  const auto job = [&](const std::string& point, int index) { return lab.summary(point)["jobs"][index]; };
  for (int index = 0; index < 2; ++index) {
    EXPECT_EQ(job("placement=packed", index)["slowdown"].get<double>(), 1.0);
    EXPECT_TRUE(job("placement=packed", index)["shared_links"].empty());
    EXPECT_GT(job("placement=spread", index)["slowdown"].get<double>(), 1.3);
  }
  // Alone, spread is slower too: its ring crosses the oversubscribed uplinks.
  EXPECT_GT(job("placement=spread", 0)["alone_s"].get<double>(), job("placement=packed", 0)["alone_s"].get<double>());
  const auto final_loss = [&](const std::string& point) {
    return nlohmann::json::parse(read_file(lab.folder / point / "jobs" / "blue" / "summary.json"))["result"]["final"]["val_loss"];
  };
  EXPECT_EQ(final_loss("placement=packed"), final_loss("placement=spread"));
  record("spread_slowdown", job("placement=spread", 0)["slowdown"].get<double>());
}

// Lab 12: across an ocean, DiLoCo with 8 inner steps reaches the target many times sooner than BSP with an eighth
// of the bytes between the sites and a lower loss; with 32 it sends fewer still and ends above BSP's loss.
TEST(CourseLabs, AcrossAnOceanDilocoReachesTheTargetSoonerWithAFractionOfTheBytes) {
  const Lab bsp = run_lab("12-datacenters-bsp");
  const Lab diloco = run_lab("12-datacenters-diloco");
  const auto figures = [](const Lab& lab, const std::string& point) {
    const nlohmann::json result = lab.summary(point)["result"];
    return std::tuple{result["time_to_target"]["sim_time_s"].get<double>(),
                      result["bytes_by_link_class"]["wan"].get<double>(), result["final"]["val_loss"].get<double>()};
  };
  const auto [bsp_s, bsp_bytes, bsp_loss] = figures(bsp, "latency=40ms");
  const auto [h8_s, h8_bytes, h8_loss] = figures(diloco, "inner_steps=8,latency=40ms");
  const auto [h32_s, h32_bytes, h32_loss] = figures(diloco, "inner_steps=32,latency=40ms");
  EXPECT_GT(bsp_s / h8_s, 5.0);
  EXPECT_NEAR(h8_bytes * 8.0 / bsp_bytes, 1.0, 1e-3);
  EXPECT_LT(h32_bytes * 20.0, bsp_bytes);
  EXPECT_LT(h8_loss, bsp_loss);
  EXPECT_GT(h32_loss, bsp_loss);
  // Close by, the wide-area link's latency is small: BSP's step is far shorter, and learns the same.
  EXPECT_LT(std::get<0>(figures(bsp, "latency=1ms")) * 20.0, bsp_s);
  EXPECT_EQ(std::get<2>(figures(bsp, "latency=1ms")), bsp_loss);
  record("diloco_h8_speedup_to_target", bsp_s / h8_s);
}

}  // namespace
}  // namespace dtsim::testing
