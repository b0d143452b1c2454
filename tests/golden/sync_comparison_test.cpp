// The comparison scenarios as a user runs them: with worker 3 four times slower, SSP(3) and async reach
// a validation loss of 0.2 in less simulated time than BSP, BSP's workers spend most of their time waiting,
// and every gradient SSP(3) used was at most 3 clocks stale.

#include "run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

struct Outcome {
  double time_to_target = -1.0;  ///< result.time_to_target: the first evaluation at or below 0.2 (base.yaml)
  nlohmann::json summary;
};

Outcome run_scenario(const std::string& name) {
  const auto folder = fresh_output_folder("compare-" + name);
  const CommandResult run = run_dtsim("run " + scenario_path("compare/" + name + ".yaml").string() + " -q -o " + folder.string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  Outcome out;
  out.summary = nlohmann::json::parse(read_file(folder / "summary.json"));
  const auto& target = out.summary["result"]["time_to_target"];
  EXPECT_EQ(target["target_loss"].get<double>(), 0.2);
  if (target["reached"].get<bool>()) out.time_to_target = target["sim_time_s"].get<double>();
  return out;
}

double waiting_fraction(const nlohmann::json& summary) {
  double wait = 0.0;
  double total = 0.0;
  for (const auto& host : summary["hosts"]) {
    if (host["role"] != "worker") continue;
    wait += host["wait_s"].get<double>();
    total += summary["result"]["simulated_s"].get<double>();
  }
  return wait / total;
}

TEST(SyncComparison, StalenessBuysBackWhatAStragglerCostsBsp) {
  const Outcome bsp = run_scenario("straggler");
  const Outcome ssp = run_scenario("straggler-ssp");
  const Outcome async = run_scenario("straggler-async");
  ASSERT_GT(bsp.time_to_target, 0.0);
  ASSERT_GT(ssp.time_to_target, 0.0);
  ASSERT_GT(async.time_to_target, 0.0);
  EXPECT_LT(ssp.time_to_target, bsp.time_to_target);
  EXPECT_LT(async.time_to_target, ssp.time_to_target);
  EXPECT_GT(waiting_fraction(bsp.summary), 0.5);
  EXPECT_LT(waiting_fraction(async.summary), 0.05);
  EXPECT_LE(ssp.summary["result"]["staleness"]["max"].get<int>(), 3);
  EXPECT_GT(ssp.summary["result"]["staleness"]["mean"].get<double>(), 0.0);
  EXPECT_EQ(bsp.summary["result"]["staleness"]["max"].get<int>(), 0);
  RecordProperty("bsp_time_to_target_s", std::to_string(bsp.time_to_target));
  RecordProperty("ssp_time_to_target_s", std::to_string(ssp.time_to_target));
  RecordProperty("async_time_to_target_s", std::to_string(async.time_to_target));
}

nlohmann::json run_one_worker_async(bool lock) {
  const std::string name = lock ? "async-locked" : "async-lock-free";
  const auto folder = fresh_output_folder("compare-" + name);
  std::filesystem::create_directories(folder / "scenario");
  {
    std::ofstream file(folder / "scenario" / "one-worker.yaml");
    file << "include: " << scenario_path("compare/no-straggler-async.yaml").string() << "\nname: " << name
         << "\ncluster: {workers: 1}\ntraining:\n  sync: {lock: " << (lock ? "true" : "false") << "}\n";
  }
  const CommandResult run =
      run_dtsim("run " + (folder / "scenario" / "one-worker.yaml").string() + " -q -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return nlohmann::json::parse(read_file(folder / "out" / "summary.json"));
}

// Under a lock the server computes each update before it replies; lock-free, the update's time passes in
// the background. With one worker nothing else differs: the locked run is longer by exactly the server's
// update time, which is the same in both, and only the locked worker waits.
TEST(SyncComparison, ALockedServerRepliesAfterEachUpdate) {
  const nlohmann::json locked = run_one_worker_async(true);
  const nlohmann::json free = run_one_worker_async(false);
  EXPECT_EQ(locked["scenario"]["training"]["sync"]["lock"], true);
  EXPECT_EQ(free["scenario"]["training"]["sync"]["lock"], false);
  const double server = locked["hosts"][1]["compute_s"].get<double>();
  ASSERT_GT(server, 0.0);
  EXPECT_NEAR(free["hosts"][1]["compute_s"].get<double>(), server, 1e-9 * server);
  EXPECT_NEAR(locked["result"]["simulated_s"].get<double>() - free["result"]["simulated_s"].get<double>(), server,
              1e-6 * server);
  EXPECT_EQ(locked["result"]["final"]["val_loss"], free["result"]["final"]["val_loss"]);
  EXPECT_GT(waiting_fraction(locked), 0.0);
  EXPECT_EQ(waiting_fraction(free), 0.0);
}

// On an allreduce, SSP(3) lets the straggler's allreduces overlap its computing: the run takes less
// simulated time than BSP's, and no gradient is more than 3 clocks stale.
TEST(SyncComparison, SspOnAnAllreduceOverlapsTheStragglersCommunication) {
  const Outcome bsp = run_scenario("allreduce-straggler");
  const Outcome ssp = run_scenario("allreduce-straggler-ssp");
  EXPECT_LT(ssp.summary["result"]["simulated_s"].get<double>(), bsp.summary["result"]["simulated_s"].get<double>());
  EXPECT_LE(ssp.summary["result"]["staleness"]["max"].get<int>(), 3);
  EXPECT_GT(ssp.summary["result"]["staleness"]["mean"].get<double>(), 0.0);
  EXPECT_EQ(bsp.summary["result"]["bytes_sent"], ssp.summary["result"]["bytes_sent"]);
}

}  // namespace
}  // namespace dtsim::testing
