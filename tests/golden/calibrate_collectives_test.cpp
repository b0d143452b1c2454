// `dtsim calibrate` on collective times: nccl-tests output and bus-bandwidth curves, link figures fitted
// from times that dtsim itself produced with known ones.

#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

void write_text(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

/// One built-in dgx_a100 node (8 A100s on NVSwitch) under NCCL; `node_types` replaces its figures.
std::string node_scenario(const std::string& node_types, const std::string& include = {}) {
  return fmt::format(R"({}name: node
cluster:
  workers: 8
  device: {{name: a100, precision: mixed}}
{}  nodes: [{{type: dgx_a100, count: 1}}]
topology: {{kind: hierarchical, fabric: fat_tree, link: {{bandwidth: "200Gbps", latency: "2us"}}}}
model: {{kind: "profile:bert_base"}}
training:
  communication_library: nccl
  batch: {{per_worker: 8}}
  optimizer: {{kind: adam, learning_rate: 0.001}}
  stop: {{iterations: 1}}
)",
                     include.empty() ? "" : "include: " + include + "\n", node_types);
}

const std::string kTrueNode =
    "  node_types:\n    dgx_a100: {devices: 8, device: a100, intra: switch, nics: 8, "
    "intra_link: {bandwidth: \"180GBps\", latency: \"0.4us\"}}\n";

/// `dtsim collective` on `scenario`: the time of each size, by size.
std::vector<std::pair<double, double>> collective_times(const std::filesystem::path& scenario, const std::string& op) {
  const CommandResult run = run_dtsim(
      fmt::format("collective --scenario {} --op {} --algo ring --sizes 64KiB:1GiB:4 --json", scenario.string(), op));
  EXPECT_EQ(run.exit_status, 0) << run.err;
  std::vector<std::pair<double, double>> out;
  const auto table = nlohmann::json::parse(run.out);
  for (const auto& row : table["rows"]) {
    out.emplace_back(row["size_bytes"].get<double>(), row["time_s"].get<double>());
  }
  return out;
}

/// nccl-tests' table as all_reduce_perf prints it (out of place, then in place), for 8 ranks.
std::string nccl_tests_output(const std::vector<std::pair<double, double>>& times, bool name_the_test, double factor,
                              const std::string& redop) {
  std::string out = name_the_test ? "# Collective test starting: all_reduce_perf\n" : "";
  out +=
      "# nThread 1 nGpus 1 minBytes 65536 maxBytes 1073741824 step: 4(factor) warmup iters: 5 iters: 20\n#\n"
      "# Using devices\n";
  for (int r = 0; r < 8; ++r) {
    out += fmt::format(
        "[1,0]<stdout>:#  Rank {:2d} Group  0 Pid {:6d} on      host device {:2d} [0x{:02x}] NVIDIA A100-SXM4-80GB\n",
        r, 1000 + r, r, 16 * r);
  }
  out +=
      "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
      "busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  for (const auto& [size, seconds] : times) {
    const double us = seconds * 1e6;
    const double algbw = size / seconds / 1e9;
    out += fmt::format(
        "{:12.0f} {:13.0f}     float {:>7}      -1 {:8.6f} {:7.6f} {:7.6f}      0 {:8.6f} {:7.6f} {:7.6f}      0\n",
        size, size / 4, redop, us, algbw, algbw * factor, us, algbw, algbw * factor);
  }
  return out + "# Out of bounds values : 0 OK\n";
}

TEST(CalibrateCollectives, RecoversTheNodeLinkThatProducedNcclTestsTimes) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-collectives");
  write_text(folder / "true.yaml", node_scenario(kTrueNode));
  write_text(folder / "all_reduce.txt",
             nccl_tests_output(collective_times(folder / "true.yaml", "allreduce"), true, 1.75, "sum"));
  // The cluster as built in: NVLink at 235 GB/s and 1 us; the fit must find 180 GB/s and 0.4 us.
  write_text(folder / "guess.yaml", node_scenario(""));
  const CommandResult fit = run_dtsim(fmt::format(
      "calibrate {} --scenario {} --fit dgx_a100.intra_link.bandwidth --fit dgx_a100.intra_link.latency -o {}",
      (folder / "all_reduce.txt").string(), (folder / "guess.yaml").string(), (folder / "fitted.yaml").string()));
  ASSERT_EQ(fit.exit_status, 0) << fit.err;
  const std::string catalog = read_file(folder / "fitted.yaml");
  const auto value = [&](const std::string& key) {
    const auto at = catalog.find(key + ": \"");
    EXPECT_NE(at, std::string::npos) << catalog;
    return std::stod(catalog.substr(at + key.size() + 3));
  };
  EXPECT_NEAR(value("bandwidth"), 180.0, 0.01 * 180.0) << fit.out;
  EXPECT_NEAR(value("latency"), 0.4, 0.02 * 0.4) << fit.out;
  EXPECT_NE(fit.out.find("guess.yaml allreduce 1 GiB"), std::string::npos) << fit.out;
  // The catalog, included by a scenario on the built-in node, gives the measured times back.
  write_text(folder / "with-catalog.yaml", node_scenario("", "fitted.yaml"));
  const auto measured = collective_times(folder / "true.yaml", "allreduce");
  const auto refitted = collective_times(folder / "with-catalog.yaml", "allreduce");
  ASSERT_EQ(measured.size(), refitted.size());
  for (std::size_t i = 0; i < measured.size(); ++i) {
    EXPECT_NEAR(refitted[i].second, measured[i].second, 0.01 * measured[i].second) << measured[i].first << " B";
  }
}

// Without "# Collective test starting", the collective is the one whose bus-bandwidth factor the rows show
// for the ranks listed: (p-1)/p without a reduction is an allgather.
TEST(CalibrateCollectives, TellsTheCollectiveFromTheBusBandwidthFactor) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-collectives-op");
  write_text(folder / "node.yaml", node_scenario(kTrueNode));
  write_text(folder / "all_gather.txt",
             nccl_tests_output(collective_times(folder / "node.yaml", "allgather"), false, 7.0 / 8.0, "none"));
  const CommandResult check = run_dtsim(
      fmt::format("calibrate {} --scenario {}", (folder / "all_gather.txt").string(), (folder / "node.yaml").string()));
  ASSERT_EQ(check.exit_status, 0) << check.err;
  EXPECT_NE(check.out.find("node.yaml allgather 64 KiB"), std::string::npos) << check.out;
  // The same times predicted by the same scenario: no error beyond the printed digits.
  EXPECT_NE(check.out.find("largest 0.00%"), std::string::npos) << check.out;
}

TEST(CalibrateCollectives, BadInputsAreNamed) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-collectives-bad");
  write_text(folder / "node.yaml", node_scenario(""));
  write_text(folder / "out.txt", nccl_tests_output({{65536.0, 3e-5}}, true, 1.75, "sum"));
  const CommandResult no_scenario = run_dtsim(fmt::format("calibrate {}", (folder / "out.txt").string()));
  EXPECT_EQ(no_scenario.exit_status, 2);
  EXPECT_NE(no_scenario.err.find("--scenario"), std::string::npos) << no_scenario.err;
  // Four ranks measured, eight simulated.
  write_text(folder / "four.yaml", node_scenario("").replace(node_scenario("").find("workers: 8"), 10, "workers: 4"));
  const CommandResult ranks = run_dtsim(
      fmt::format("calibrate {} --scenario {}", (folder / "out.txt").string(), (folder / "four.yaml").string()));
  EXPECT_EQ(ranks.exit_status, 2);
  EXPECT_NE(ranks.err.find("lists 8 ranks"), std::string::npos) << ranks.err;
  write_text(folder / "curve.csv", "scenario,operation,size_B,busbw_GBps\nnode.yaml,allreduse,1024,0.5\n");
  const CommandResult op = run_dtsim(fmt::format("calibrate {}", (folder / "curve.csv").string()));
  EXPECT_EQ(op.exit_status, 2);
  EXPECT_NE(op.err.find("curve.csv:2:1"), std::string::npos) << op.err;
  EXPECT_NE(op.err.find("operation: expected a collective, got \"allreduse\"\n  hint: valid: "), std::string::npos)
      << op.err;
  const CommandResult key = run_dtsim(fmt::format("calibrate {} --scenario {} --fit dgx_h100.intra_link.bandwidth",
                                                  (folder / "out.txt").string(), (folder / "node.yaml").string()));
  EXPECT_EQ(key.exit_status, 2);
  EXPECT_NE(key.err.find("no measured scenario has nodes of type 'dgx_h100'"), std::string::npos) << key.err;
}

// A size beyond 2^53 bytes is no message a count of floats holds: refused at its cell in a bus-bandwidth curve, at
// its line in nccl-tests output.
TEST(CalibrateCollectives, SizesBeyondWhatADoubleCountsAreRefused) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-collectives-huge");
  write_text(folder / "node.yaml", node_scenario(""));
  write_text(folder / "curve.csv", "scenario,operation,size_B,busbw_GBps\nnode.yaml,allreduce,1e300,0.5\n");
  const CommandResult curve = run_dtsim(fmt::format("calibrate {}", (folder / "curve.csv").string()));
  EXPECT_EQ(curve.exit_status, 2);
  EXPECT_NE(curve.err.find("curve.csv:2:21: error: size_B: expected a number of bytes of at most 2^53 B (8192 TiB), "
                           "got \"1e300\"\n  hint: give each size in bytes, as nccl-tests prints it"),
            std::string::npos)
      << curve.err;
  write_text(folder / "out.txt", nccl_tests_output({{65536.0, 3e-5}, {1e300, 1e290}}, true, 1.75, "sum"));
  const CommandResult nccl = run_dtsim(
      fmt::format("calibrate {} --scenario {}", (folder / "out.txt").string(), (folder / "node.yaml").string()));
  EXPECT_EQ(nccl.exit_status, 2);
  EXPECT_NE(nccl.err.find("error: measurements: expected a size of at most 2^53 B (8192 TiB), got \"1000000"),
            std::string::npos)
      << nccl.err;
}

// A time must be a duration dtsim takes elsewhere (1e-12 s to 1e9 s), as each size must be one it counts: refused
// at its cell in a CSV, at its figure in nccl-tests output; a bus bandwidth at its cell when the time it stands
// for on the scenario's ranks is outside them.
TEST(CalibrateCollectives, TimesOutsideTheDurationsDtsimTakesAreRefused) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-collectives-times");
  write_text(folder / "node.yaml", node_scenario(""));
  const std::string times = (folder / "times.csv").string();
  write_text(folder / "times.csv",
             "scenario,operation,size_B,time_us\nnode.yaml,allreduce,1024,1e300\nnode.yaml,allreduce,2048,1e-300\n");
  const CommandResult csv = run_dtsim(fmt::format("calibrate {}", times));
  EXPECT_EQ(csv.exit_status, 2);
  const std::string hint = "  hint: give each size's time in microseconds, as nccl-tests prints it\n";
  EXPECT_EQ(csv.err, fmt::format("{0}:2:26: error: time_us: expected a time from 1e-12s to 1e9s, in microseconds, got "
                                 "\"1e300\"\n{1}{0}:3:26: error: time_us: expected a time from 1e-12s to 1e9s, in "
                                 "microseconds\n{1}",
                                 times, hint));
  // 1024 B x 2(p-1)/p = 1792 B at 1e290 GB/s is 1.79e-296 s.
  const std::string curve = (folder / "curve.csv").string();
  write_text(folder / "curve.csv", "scenario,operation,size_B,busbw_GBps\nnode.yaml,allreduce,1024,1e290\n");
  const CommandResult busbw = run_dtsim(fmt::format("calibrate {}", curve));
  EXPECT_EQ(busbw.exit_status, 2);
  EXPECT_EQ(busbw.err,
            fmt::format("{}:2:26: error: busbw_GBps: 1e+290 GB/s over 1024 B on 8 ranks is a time of 1.79e-296s: "
                        "expected a time from 1e-12s to 1e9s\n  hint: give each size's bus bandwidth in GB/s, "
                        "as nccl-tests prints it\n",
                        curve));
  // Two thousand million seconds, 2e15 us, on line 17 (after the ranks and the table's two header lines), column 54.
  const std::string output = (folder / "out.txt").string();
  write_text(folder / "out.txt", nccl_tests_output({{65536.0, 3e-5}, {131072.0, 2e9}}, true, 1.75, "sum"));
  const CommandResult nccl =
      run_dtsim(fmt::format("calibrate {} --scenario {}", output, (folder / "node.yaml").string()));
  EXPECT_EQ(nccl.exit_status, 2);
  EXPECT_EQ(nccl.err,
            fmt::format("{}:17:54: error: measurements: expected a time from 1e-12s to 1e9s, in microseconds, got "
                        "\"2000000000000000.000000\"\n  hint: give the output of an nccl-tests program as it "
                        "prints it\n",
                        output));
}

// A row with more cells than the header names is refused where the extra cell starts; a header that names a
// column twice, at the second name.
TEST(CalibrateCollectives, ExtraCellsAndRepeatedColumnsAreRefusedWhereTheyStart) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-collectives-shape");
  const std::string extra = (folder / "extra.csv").string();
  write_text(folder / "extra.csv", "scenario,operation,size_B,time_us\nnode.yaml,allreduce,1024,30,x\n");
  const CommandResult cells = run_dtsim(fmt::format("calibrate {}", extra));
  EXPECT_EQ(cells.exit_status, 2);
  EXPECT_EQ(cells.err,
            fmt::format("{}:2:29: error: measurements: the row has 5 cells, and the header names 4, got \"x\"\n"
                        "  hint: give each row one cell per column of the header, and quote a cell that holds "
                        "a comma (\"a,b\")\n",
                        extra));
  const std::string twice = (folder / "twice.csv").string();
  write_text(folder / "twice.csv", "scenario,operation,size_B,size_B,busbw_GBps\nnode.yaml,allreduce,1024,2048,0.5\n");
  const CommandResult header = run_dtsim(fmt::format("calibrate {}", twice));
  EXPECT_EQ(header.exit_status, 2);
  EXPECT_EQ(header.err,
            fmt::format("{}:1:27: error: measurements: the header names the column \"size_B\" twice (first at "
                        "column 20)\n  hint: name each column once: dtsim would read one of the two and "
                        "ignore the other\n",
                        twice));
}

// The catalog is never written over the scenario nccl-tests output was measured on.
TEST(CalibrateCollectives, ACatalogIsNeverWrittenOverTheMeasuredScenario) {
  const std::filesystem::path folder = fresh_output_folder("calibrate-collectives-output");
  const std::string scenario = node_scenario("");
  write_text(folder / "node.yaml", scenario);
  write_text(folder / "out.txt", nccl_tests_output({{65536.0, 3e-5}}, true, 1.75, "sum"));
  const std::string node = (folder / "node.yaml").string();
  const CommandResult over =
      run_dtsim(fmt::format("calibrate {} --scenario {} --fit dgx_a100.intra_link.bandwidth -o {}",
                            (folder / "out.txt").string(), node, node));
  EXPECT_EQ(over.exit_status, 2);
  EXPECT_EQ(over.err,
            fmt::format("dtsim calibrate: error: --output: {} is the scenario of the measurements at {}:16: the "
                        "catalog would replace it\n  hint: write the catalog to a file of its own and include "
                        "it in the scenarios (include: catalog.yaml)\n",
                        node, (folder / "out.txt").string()));
  EXPECT_EQ(read_file(folder / "node.yaml"), scenario);
}

// On a switch that reduces, NCCL's single-node allreduce of a large buffer runs as NVLS: each GPU link carries
// n (1 + 1/p) bytes each way, at 0.85 of its rate on Hopper and earlier (0.74 on Blackwell), after 25 us.
TEST(CalibrateCollectives, AReducingSwitchRunsLargeAllreducesAsNvls) {
  const std::filesystem::path folder = fresh_output_folder("nvls");
  const std::string types =
      "  node_types:\n    hgx: {devices: 8, device: a100, intra: switch, nvls: true, nics: 8, "
      "intra_link: {bandwidth: \"200GBps\", latency: \"0.5us\"}}\n";
  std::string scenario = node_scenario(types);
  scenario.replace(scenario.find("type: dgx_a100"), 14, "type: hgx");
  write_text(folder / "nvls.yaml", scenario);
  const CommandResult run = run_dtsim(fmt::format("collective --scenario {} --algo ring --sizes 1KiB:1GiB:1024 --json",
                                                  (folder / "nvls.yaml").string()));
  ASSERT_EQ(run.exit_status, 0) << run.err;
  const auto table = nlohmann::json::parse(run.out);
  ASSERT_EQ(table["rows"].size(), 3U);
  EXPECT_EQ(table["rows"][2]["protocol"], "NVLS") << run.out;
  const double bytes = 1073741824.0;
  const double expected = 25e-6 + (bytes * (1.0 + 1.0 / 8.0) / 200e9 + 2 * 0.5e-6) / 0.85;
  EXPECT_NEAR(table["rows"][2]["time_s"].get<double>(), expected, 1e-4 * expected) << run.out;
  // Blackwell's switches reach 0.74 of the links (NCCL's nvlsEfficiency for compute capability 10.0).
  std::string blackwell = scenario;
  blackwell.replace(blackwell.find("device: a100, intra: switch"), 12, "device: b200");
  write_text(folder / "blackwell.yaml", blackwell);
  const CommandResult on_b200 = run_dtsim(fmt::format(
      "collective --scenario {} --algo ring --sizes 1GiB --json", (folder / "blackwell.yaml").string()));
  ASSERT_EQ(on_b200.exit_status, 0) << on_b200.err;
  const auto b200 = nlohmann::json::parse(on_b200.out);
  EXPECT_EQ(b200["rows"][0]["protocol"], "NVLS") << on_b200.out;
  const double slower = 25e-6 + (bytes * (1.0 + 1.0 / 8.0) / 200e9 + 2 * 0.5e-6) / 0.74;
  EXPECT_NEAR(b200["rows"][0]["time_s"].get<double>(), slower, 1e-4 * slower) << on_b200.out;
  // A switch that does not switch cannot reduce.
  std::string mesh = scenario;
  mesh.replace(mesh.find("intra: switch"), 13, "intra: all_to_all");
  write_text(folder / "mesh.yaml", mesh);
  const CommandResult bad = run_dtsim(fmt::format("validate {}", (folder / "mesh.yaml").string()));
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("nvls"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace dtsim::testing
