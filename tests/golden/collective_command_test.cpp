// `dtsim collective` as a user runs it: the table's closed forms match where the algorithm is
// uncontended, the JSON carries the same rows, and bad options are usage errors (exit 2).

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace dtsim::testing {
namespace {

TEST(CollectiveCommand, EveryAlgorithmMatchesItsClosedFormOnAMesh) {
  const CommandResult run = run_dtsim("collective --topology mesh --ranks 8 --sizes 1KiB:1MiB:32 --json");
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["ranks"], 8);
  ASSERT_EQ(report["rows"].size(), 3U * 5U);  // 1 KiB, 32 KiB, 1 MiB x five algorithms
  for (const auto& row : report["rows"]) {
    const double time = row["time_s"];
    const double closed = row["closed_form_s"];
    EXPECT_NEAR(time, closed, 1e-3 * closed) << row.dump();
    EXPECT_NEAR(row["algbw_gb_per_s"].get<double>(), row["size_bytes"].get<double>() / time / 1e9, 1e-9);
    EXPECT_NEAR(row["busbw_gb_per_s"].get<double>(), row["algbw_gb_per_s"].get<double>() * 2 * 7 / 8, 1e-9);
  }
}

TEST(CollectiveCommand, TableShowsRingExactOnARingAndOthersSlower) {
  const CommandResult run = run_dtsim("collective --ranks 8 --sizes 64KiB:64KiB");
  ASSERT_EQ(run.exit_status, 0) << run.err;
  EXPECT_NE(run.out.find("# allreduce on 8 ranks, topology ring (links 10 Gbps, 5 us), alpha_beta network model"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("ring"), std::string::npos);
  // Ring on its own topology: simulated over closed form is exactly one.
  const auto line_start = run.out.find("  ring ");
  ASSERT_NE(line_start, std::string::npos) << run.out;
  const std::string line = run.out.substr(line_start, run.out.find('\n', line_start) - line_start);
  EXPECT_EQ(line.substr(line.size() - 6), "1.0000") << line;
}

// A user fixes every flag in one go: each bad flag is reported, not the first alone.
// With --library nccl every row names the protocol NCCL's model picks: a low-latency one for 1 KiB,
// Simple for 256 MiB; each time is the library's, above the bare network's closed form.
TEST(CollectiveCommand, LibraryRowsNameTheChosenProtocol) {
  const CommandResult run = run_dtsim(
      "collective --ranks 8 --topology ring --bandwidth 100GBps --latency 0.1us --algo ring --library nccl "
      "--sizes 1KiB:256MiB:8 --json");
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["library"], "nccl");
  const auto& rows = report["rows"];
  ASSERT_GE(rows.size(), 2U);
  EXPECT_NE(rows.front()["protocol"], "Simple");
  EXPECT_EQ(rows.back()["protocol"], "Simple");
  for (const auto& row : rows) EXPECT_NEAR(row["time_s"].get<double>(), row["closed_form_s"].get<double>(), 1e-3 * row["time_s"].get<double>());
  const CommandResult bad = run_dtsim("collective --ranks 8 --library mpi");
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("unknown communication library 'mpi'"), std::string::npos) << bad.err;
}

TEST(CollectiveCommand, EveryBadOptionIsReportedInOneRun) {
  const CommandResult bad = run_dtsim(
      "collective --op allgahter --ranks 0 --repeat 0 --sizes 1KiB:2 --topology rng --bandwidth 10Gbsp --latency 5 "
      "--network-model foo");
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_EQ(bad.out, "");
  for (const char* flag : {"--op", "--ranks", "--repeat", "--sizes", "--topology", "--bandwidth", "--latency",
                           "--network-model"}) {
    EXPECT_NE(bad.err.find(fmt::format("dtsim collective: error: {}: ", flag)), std::string::npos) << flag << "\n" << bad.err;
  }
  EXPECT_NE(bad.err.find("did you mean 'ring'?"), std::string::npos) << bad.err;
  // Options of a topology are checked once the topology is known: a torus's dimensions with a bad latency.
  const CommandResult torus = run_dtsim("collective --topology torus --dimensions 3x1 --latency 5lightyears");
  EXPECT_EQ(torus.exit_status, 2);
  EXPECT_NE(torus.err.find("--latency: "), std::string::npos) << torus.err;
  EXPECT_NE(torus.err.find("--dimensions: expected sizes of at least 2 such as 4x4, got \"3x1\""), std::string::npos)
      << torus.err;
}

// A size past what a double counts byte for byte is refused (1e20 B wrapped around 2^64 and gave 3e-05 s),
// and one size needs no range.
TEST(CollectiveCommand, SizesAreBoundedAndOneSizeIsARange) {
  const CommandResult huge = run_dtsim("collective --sizes 1e20B:1e20B");
  EXPECT_EQ(huge.exit_status, 2);
  EXPECT_NE(huge.err.find("--sizes: a size must be 0 or from 0.001B to 8192TiB, got \"1e20B\""), std::string::npos)
      << huge.err;
  const CommandResult one = run_dtsim("collective --sizes 1GiB --ranks 4 --algo ring --json");
  ASSERT_EQ(one.exit_status, 0) << one.err;
  const nlohmann::json rows = nlohmann::json::parse(one.out)["rows"];
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0]["size_bytes"].get<double>(), 1073741824.0);
}

TEST(CollectiveCommand, BadOptionsAreUsageErrors) {
  const CommandResult unknown = run_dtsim("collective --op allgahter");
  EXPECT_EQ(unknown.exit_status, 2);
  EXPECT_EQ(unknown.err, "dtsim collective: error: --op: unknown collective 'allgahter'\n  hint: did you mean 'allgather'? "
                         "valid: allreduce, reduce_scatter, allgather, broadcast, reduce, all_to_all\n");
  const CommandResult wrong_algo = run_dtsim("collective --op broadcast --algo ring");
  EXPECT_EQ(wrong_algo.exit_status, 2);
  EXPECT_NE(wrong_algo.err.find("unknown broadcast algorithm 'ring'"), std::string::npos) << wrong_algo.err;
  const CommandResult misspelt = run_dtsim("collective --algo rign");
  EXPECT_EQ(misspelt.exit_status, 2);
  EXPECT_NE(misspelt.err.find("did you mean 'ring'?"), std::string::npos) << misspelt.err;
  const CommandResult sizes = run_dtsim("collective --sizes 1KiB:1GBps");
  EXPECT_EQ(sizes.exit_status, 2);
  EXPECT_NE(sizes.err.find("--sizes: unknown size unit"), std::string::npos) << sizes.err;
  const CommandResult torus = run_dtsim("collective --topology torus --dimensions 3x3 --ranks 8");
  EXPECT_EQ(torus.exit_status, 2);
  EXPECT_NE(torus.err.find("the torus holds 9 ranks but --ranks is 8"), std::string::npos) << torus.err;
  // A topology option applies to the topologies that declare its key; the hint lists them from the registry.
  const CommandResult one_way = run_dtsim("collective --topology mesh --unidirectional");
  EXPECT_EQ(one_way.exit_status, 2);
  EXPECT_NE(one_way.err.find("--unidirectional: applies to a topology with one-way links, and 'mesh' has none"),
            std::string::npos)
      << one_way.err;
  EXPECT_NE(one_way.err.find("topologies with a `bidirectional` key: ring"), std::string::npos) << one_way.err;
}

// Every operation: the rows match the closed forms on a mesh for the mesh algorithms, and busbw uses the
// operation's factor.
class CollectiveCommandOperation : public ::testing::TestWithParam<std::tuple<std::string, double>> {};

TEST_P(CollectiveCommandOperation, MatchesTheClosedFormsWithTheOperationsBusFactor) {
  const auto [operation, bus_factor] = GetParam();
  const CommandResult run = run_dtsim("collective --op " + operation + " --topology mesh --ranks 8 --sizes 4KiB:4MiB:32 --json");
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["operation"], operation);
  ASSERT_GE(report["rows"].size(), 3U);
  for (const auto& row : report["rows"]) {
    if (row["algorithm"] == "ring") continue;  // uncontended on a ring, not on a mesh
    EXPECT_NEAR(row["time_s"].get<double>(), row["closed_form_s"].get<double>(), 1e-3 * row["closed_form_s"].get<double>())
        << row.dump();
    EXPECT_NEAR(row["busbw_gb_per_s"].get<double>(), row["algbw_gb_per_s"].get<double>() * bus_factor, 1e-9);
  }
}

INSTANTIATE_TEST_SUITE_P(Operations, CollectiveCommandOperation,
                         ::testing::Values(std::tuple{"reduce_scatter", 7.0 / 8}, std::tuple{"allgather", 7.0 / 8},
                                           std::tuple{"broadcast", 1.0}, std::tuple{"reduce", 1.0},
                                           std::tuple{"all_to_all", 7.0 / 8}),
                         [](const auto& param_info) { return std::get<0>(param_info.param); });

TEST(CollectiveCommand, TakesTheTopologyFromAScenario) {
  const CommandResult run =
      run_dtsim("collective --scenario " + scenario_path("quickstart.yaml").string() + " --algo ring --sizes 4KiB:4KiB --json");
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["ranks"], 8);
  EXPECT_EQ(report["topology"], "ring");
  EXPECT_NEAR(report["rows"][0]["time_s"].get<double>(), report["rows"][0]["closed_form_s"].get<double>(),
              1e-3 * report["rows"][0]["closed_form_s"].get<double>());
}

// A scenario gives the topology: topology options beside it are errors, not silently dropped; the network
// model may be changed; a sweep's point is picked with --point.
TEST(CollectiveCommand, AScenarioGivesTheTopologyAndOptionsMayChangeItsNetworkModel) {
  const std::string quickstart = scenario_path("quickstart.yaml").string();
  const CommandResult mesh = run_dtsim("collective --scenario " + quickstart + " --topology mesh --bandwidth 1Gbps");
  EXPECT_EQ(mesh.exit_status, 2);
  EXPECT_EQ(mesh.err, "dtsim collective: error: --topology: the scenario gives the topology and its links\n"
                      "  hint: leave out --scenario to build the topology from the options, or change the scenario\n"
                      "dtsim collective: error: --bandwidth: the scenario gives the topology and its links\n"
                      "  hint: leave out --scenario to build the topology from the options, or change the scenario\n");
  const CommandResult closed =
      run_dtsim("collective --scenario " + quickstart + " --algo ring --sizes 4KiB:4KiB --network-model closed_form --json");
  ASSERT_EQ(closed.exit_status, 0) << closed.err;
  EXPECT_EQ(nlohmann::json::parse(closed.out)["network_model"], "closed_form");
  const CommandResult swept = run_dtsim("collective --scenario " + scenario_path("profiles/resnet50-nodes.yaml").string() +
                                        " --point algorithm=hierarchical --algo hierarchical --sizes 1MiB:1MiB --json");
  ASSERT_EQ(swept.exit_status, 0) << swept.err;
  EXPECT_EQ(nlohmann::json::parse(swept.out)["rows"][0]["algorithm"], "hierarchical");
  const CommandResult alone = run_dtsim("collective --point algorithm=ring");
  EXPECT_EQ(alone.exit_status, 2);
  EXPECT_EQ(alone.err, "dtsim collective: error: --point: picks a sweep point of a scenario\n  hint: add --scenario FILE\n");
}

// NCCL's cost model covers its rings and trees; its all-to-all is grouped sends, which it does not model.
TEST(CollectiveCommand, AllToAllIsRefusedUnderTheLibraryModel) {
  const CommandResult run = run_dtsim("collective --op all_to_all --topology mesh --ranks 8 --library nccl");
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(run.err, "dtsim collective: error: --library: the nccl library model covers NCCL's ring and tree collectives, "
                     "and NCCL runs all-to-all as grouped point-to-point sends, which it does not model\n"
                     "  hint: use --library none\n");
}

TEST(CollectiveCommand, TopologiesTakeTheirOwnChecksAndRefuseKeysWithoutOptions) {
  const CommandResult small = run_dtsim("collective --topology k_ary_fat_tree --ranks 64 --algo ring --sizes 1KiB:1KiB");
  EXPECT_EQ(small.exit_status, 2);
  EXPECT_EQ(small.err, "dtsim collective: error: --k: a 4-ary fat tree holds 16 hosts at most, fewer than the 64 workers\n"
                       "  hint: --k 8 holds them\n");
  EXPECT_EQ(run_dtsim("collective --topology k_ary_fat_tree --k 8 --ranks 64 --algo ring --sizes 1KiB:1KiB").exit_status, 0);
  const CommandResult dragonfly = run_dtsim("collective --topology dragonfly --ranks 8 --algo ring --sizes 1KiB:1KiB");
  EXPECT_EQ(dragonfly.exit_status, 2);
  EXPECT_EQ(dragonfly.err, "dtsim collective: error: --topology: 'dragonfly' needs groups, routers, hosts, global_links, "
                           "which dtsim collective has no options for\n  hint: write the topology in a scenario file and "
                           "pass it with --scenario\n");
}

TEST(CollectiveCommand, TheDirectAlgorithmIsRefusedPastItsRankLimit) {
  const CommandResult direct = run_dtsim("collective --ranks 4096 --algo direct --sizes 1KiB:1KiB");
  EXPECT_EQ(direct.exit_status, 2);
  EXPECT_EQ(direct.err, "dtsim collective: error: --algo: the direct algorithm posts p(p-1) = 16773120 messages at once, "
                        "and simulates at most 128 ranks (4096 here)\n  hint: use network_model: analytical (up to 4096 "
                        "ranks), or ring (or tree, halving_doubling) at this scale\n");
}

// Past 128 ranks the analytical network times every-to-every steps from the loads of the links: where each
// message has a link of its own (a mesh) that is the closed form (chunks of whole elements); on a k-ary fat tree no rank is done before its
// NIC has carried its p - 1 chunks, twice, and hashed routes load some of the switches' uplinks more (by 11% at 512 ranks).
TEST(CollectiveCommand, TheDirectAlgorithmsRunPast128RanksUnderTheAnalyticalNetwork) {
  for (const char* operation : {"allreduce", "reduce_scatter", "allgather", "all_to_all"}) {
    const CommandResult mesh = run_dtsim(fmt::format("collective --op {} --topology mesh --ranks 160 --algo direct "
                                                     "--sizes 64000KiB:64000KiB --network-model analytical --json",
                                                     operation));
    ASSERT_EQ(mesh.exit_status, 0) << mesh.err;
    const auto row = nlohmann::json::parse(mesh.out)["rows"][0];
    EXPECT_NEAR(row["time_s"].get<double>(), row["closed_form_s"].get<double>(), 1e-9 * row["closed_form_s"].get<double>())
        << operation;
  }
  const CommandResult fat_tree = run_dtsim("collective --topology k_ary_fat_tree --k 16 --ranks 512 --algo direct "
                                           "--sizes 64MiB:64MiB --bandwidth 100Gbps --latency 1us --network-model "
                                           "analytical --json");
  ASSERT_EQ(fat_tree.exit_status, 0) << fat_tree.err;
  const double chunk = 64.0 * 1024 * 1024 / 512;
  const double nic = 100e9 / 8;
  // Each half: the latency of a route across the core (six hops), then 511 chunks through the NIC.
  const double expected = 2 * (6e-6 + 511 * chunk / nic);
  const double time = nlohmann::json::parse(fat_tree.out)["rows"][0]["time_s"].get<double>();
  EXPECT_GT(time, expected * (1.0 + 1e-6));
  EXPECT_LT(time, expected * 1.15);
}

}  // namespace
}  // namespace dtsim::testing
