// A plug-in as a student builds it: dtsim installed into a prefix, the example (examples/plugins/) configured
// and built outside the tree against the installed package, then loaded by the installed dtsim. The example
// passes `dtsim check-plugin`; the wrong plug-ins are reported (a wrong sum and closed form, a crash, a hang)
// without bringing the grader down; `dtsim collective` and `dtsim run` use the example by name. The same for
// a sync strategy plug-in (staleness-squared/, wrong-strategies/), checked by training with it.
// Few tests: the install and the builds are what they test, and they take most of their time.

#include "golden/run_dtsim.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>

namespace dtsim::testing {
namespace {

CommandResult shell(const std::string& command) {
  CommandResult result;
  const std::string with_err = command + " 2>&1";
  FILE* pipe = ::popen(with_err.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), static_cast<int>(chunk.size()), pipe) != nullptr) result.out += chunk.data();
  const int status = ::pclose(pipe);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

/// Configures and builds one example plug-in against the installed package; returns its library.
std::filesystem::path build_example(const std::filesystem::path& prefix, const std::filesystem::path& work,
                                    const std::string& folder, const std::string& library) {
  const auto source = std::filesystem::path(DTSIM_SOURCE_DIR) / "examples" / "plugins" / folder;
  const auto build = work / folder;
  const CommandResult configure = shell("cmake -S " + quoted(source) + " -B " + quoted(build) +
                                        " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + quoted(prefix));
  EXPECT_EQ(configure.exit_status, 0) << configure.out;
  const CommandResult compile = shell("cmake --build " + quoted(build));
  EXPECT_EQ(compile.exit_status, 0) << compile.out;
  return build / ("lib" + library + ".so");
}

/// dtsim installed into `prefix`, as a student's machine has it.
void install(const std::filesystem::path& prefix) {
  const CommandResult installed = shell("cmake --install " + quoted(DTSIM_BUILD_DIR) + " --prefix " + quoted(prefix));
  ASSERT_EQ(installed.exit_status, 0) << installed.out;
}

/// The part of a check-plugin report about one entry ("allreduce/forgets_root", "sync strategy never_learns").
std::string section(const std::string& report, const std::string& heading) {
  const std::size_t begin = report.find("\n" + heading + "\n");
  EXPECT_NE(begin, std::string::npos) << report;
  if (begin == std::string::npos) return std::string();
  const std::size_t end = report.find("\n\n", begin + 1);
  return report.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

TEST(PluginOutOfTree, TheExampleBuildsAgainstTheInstalledPackageAndPassesAndWrongOnesAreReported) {
  const auto work = fresh_output_folder("plugin-out-of-tree");
  const auto prefix = work / "prefix";
  install(prefix);
  const auto dtsim = prefix / "bin" / "dtsim";
  ASSERT_TRUE(std::filesystem::exists(prefix / "include" / "dtsim" / "dtsim" / "plugin.hpp"));
  ASSERT_TRUE(std::filesystem::exists(prefix / "lib" / "cmake" / "dtsim" / "dtsimConfig.cmake"));

  const auto example = build_example(prefix, work, "reduce-broadcast", "reduce_broadcast");
  const auto wrong = build_example(prefix, work, "wrong", "wrong_allreduces");
  ASSERT_TRUE(std::filesystem::exists(example));
  ASSERT_TRUE(std::filesystem::exists(wrong));

  const CommandResult passed = shell(quoted(dtsim) + " check-plugin " + quoted(example));
  EXPECT_EQ(passed.exit_status, 0) << passed.out;
  EXPECT_NE(passed.out.find("loaded: all_to_all algorithm 'pairwise', allreduce algorithm 'reduce_broadcast'"),
            std::string::npos)
      << passed.out;
  EXPECT_NE(passed.out.find("PASS  values"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find("PASS  closed form"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find("PASS  deterministic"), std::string::npos) << passed.out;
  EXPECT_EQ(section(passed.out, "all_to_all/pairwise").find("FAIL"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find("6 of 6 checks passed"), std::string::npos) << passed.out;
  RecordProperty("check_plugin_example", passed.out);

  // A generous limit: a cold, busy machine must not turn a slow case into a hang.
  const CommandResult failed = shell(quoted(dtsim) + " check-plugin --timeout 20 " + quoted(wrong));
  EXPECT_EQ(failed.exit_status, 1) << failed.out;
  const std::string forgets = section(failed.out, "allreduce/forgets_root");
  EXPECT_NE(forgets.find("FAIL  values: p = 2, 1 elements: rank 0 element 0 is 2, expected 3"), std::string::npos) << forgets;
  EXPECT_NE(forgets.find("FAIL  closed form: on a mesh of 2 ranks, 1 KiB"), std::string::npos) << forgets;
  EXPECT_NE(forgets.find("PASS  deterministic"), std::string::npos) << forgets;
  EXPECT_NE(section(failed.out, "allreduce/crashes").find("CRASH values: p = 2, 1 elements: crashed: signal 11"), std::string::npos) << failed.out;
  const std::string hangs = section(failed.out, "allreduce/hangs");
  EXPECT_NE(hangs.find("HANG  values: p = 2, 1 elements: still running after 20 s (a hang?), stopped"), std::string::npos)
      << hangs;
  EXPECT_NE(hangs.find("SKIP  the checks after a hang"), std::string::npos) << hangs;
  EXPECT_NE(failed.out.find("1 of 9 checks passed"), std::string::npos) << failed.out;
  RecordProperty("check_plugin_wrong", failed.out);

  const CommandResult collective = shell(quoted(dtsim) + " collective --plugin " + quoted(example) +
                                         " --topology mesh --algo reduce_broadcast --ranks 8 --sizes 1MiB:1MiB --json");
  ASSERT_EQ(collective.exit_status, 0) << collective.out;
  const nlohmann::json rows = nlohmann::json::parse(collective.out);
  EXPECT_EQ(rows["rows"][0]["algorithm"], "reduce_broadcast");
  EXPECT_NEAR(rows["rows"][0]["time_s"].get<double>(), rows["rows"][0]["closed_form_s"].get<double>(),
              1e-6 * rows["rows"][0]["closed_form_s"].get<double>());

  // A scenario names it as it names a built-in; without the plug-in the name is refused.
  const auto scenario = work / "reduce-broadcast.yaml";
  std::ofstream(scenario) << "name: reduce-broadcast\nseed: 1\ncluster: {workers: 4, device: {name: cpu-core, peak_flops: 10GFLOPS}}\n"
                             "topology: {kind: mesh, link: {bandwidth: 10Gbps, latency: 5us}}\n"
                             "model: {kind: logistic_regression}\n"
                             "data: {kind: synthetic_classification, samples: 2000, features: 16}\n"
                             "training:\n  batch: {per_worker: 16}\n  optimizer: {learning_rate: 0.5}\n"
                             "  architecture: {kind: allreduce, algorithm: reduce_broadcast}\n  stop: {epochs: 1}\n";
  const CommandResult refused = shell(quoted(dtsim) + " validate " + quoted(scenario));
  EXPECT_EQ(refused.exit_status, 2) << refused.out;
  EXPECT_NE(refused.out.find("reduce_broadcast"), std::string::npos) << refused.out;
  const CommandResult run = shell(quoted(dtsim) + " run -q " + quoted(scenario) + " --plugin " + quoted(example) +
                                  " -o " + quoted(work / "run"));
  EXPECT_EQ(run.exit_status, 0) << run.out;
  EXPECT_TRUE(std::filesystem::exists(work / "run" / "summary.json"));

  const CommandResult not_a_plugin = shell(quoted(dtsim) + " check-plugin " + quoted(scenario));
  EXPECT_EQ(not_a_plugin.exit_status, 2) << not_a_plugin.out;
  EXPECT_EQ(not_a_plugin.out.find("error: cannot load the plug-in"), scenario.string().size() + 2) << not_a_plugin.out;

  const CommandResult missing = shell(quoted(dtsim) + " run -q " + quoted(scenario) + " --plugin " + quoted(work / "none.so"));
  EXPECT_EQ(missing.exit_status, 2) << missing.out;
  EXPECT_NE(missing.out.find("none.so: error: no such plug-in file"), std::string::npos) << missing.out;
  const CommandResult device = shell(quoted(dtsim) + " check-plugin /dev/null");
  EXPECT_EQ(device.exit_status, 2) << device.out;
  EXPECT_NE(device.out.find("/dev/null: error: this is a device, pipe or socket, not a plug-in's shared library"),
            std::string::npos) << device.out;

  // Plug-ins whose loading goes wrong: each is refused, named, with exit status 2; dtsim itself never dies.
  const std::string broken = "broken-registration";
  const std::array<std::pair<const char*, const char*>, 3> cases{{
      {"crashes_registering", "error: the plug-in's loading and registration crashed: signal 11 (Segmentation fault)"},
      {"throws_registering", "error: the plug-in threw while registering its entries: the plug-in's own table is missing"},
      {"null_version", "error: built against dtsim of no version (its version function returned null)"},
  }};
  for (const auto& [library, expected] : cases) {
    const auto plugin = build_example(prefix, work, broken, library);
    for (const std::string& command : std::vector<std::string>{" check-plugin ", " validate " + quoted(scenario) + " --plugin "}) {
      const CommandResult refused_plugin = shell(quoted(dtsim) + command + quoted(plugin));
      EXPECT_EQ(refused_plugin.exit_status, 2) << library << refused_plugin.out;
      EXPECT_NE(refused_plugin.out.find(plugin.string() + ": " + expected), std::string::npos) << refused_plugin.out;
    }
  }
}

// A sync strategy plug-in: the example trains and is deterministic, the wrong ones are reported (no learning,
// no determinism), and a scenario names the example's strategy once it is loaded.
TEST(PluginOutOfTree, AStrategyPluginIsCheckedByTrainingWithIt) {
  const auto work = fresh_output_folder("plugin-strategies");
  const auto prefix = work / "prefix";
  install(prefix);
  const auto dtsim = prefix / "bin" / "dtsim";
  const auto example = build_example(prefix, work, "staleness-squared", "staleness_squared");
  const auto wrong = build_example(prefix, work, "wrong-strategies", "wrong_strategies");
  ASSERT_TRUE(std::filesystem::exists(example));
  ASSERT_TRUE(std::filesystem::exists(wrong));

  const CommandResult passed = shell(quoted(dtsim) + " check-plugin " + quoted(example));
  EXPECT_EQ(passed.exit_status, 0) << passed.out;
  EXPECT_NE(passed.out.find("loaded: sync strategy 'staleness_squared'"), std::string::npos) << passed.out;
  const std::string trains = section(passed.out, "sync strategy staleness_squared");
  EXPECT_NE(trains.find("PASS  trains: validation loss"), std::string::npos) << trains;
  EXPECT_NE(trains.find("on a parameter server"), std::string::npos) << trains;
  EXPECT_NE(trains.find("PASS  deterministic"), std::string::npos) << trains;
  EXPECT_NE(passed.out.find("2 of 2 checks passed"), std::string::npos) << passed.out;
  RecordProperty("check_plugin_strategy_example", passed.out);

  const CommandResult failed = shell(quoted(dtsim) + " check-plugin --timeout 60 " + quoted(wrong));
  EXPECT_EQ(failed.exit_status, 1) << failed.out;
  const std::string never = section(failed.out, "sync strategy never_learns");
  EXPECT_NE(never.find("FAIL  trains: validation loss"), std::string::npos) << never;
  EXPECT_NE(never.find("on an allreduce"), std::string::npos) << never;
  EXPECT_NE(never.find("PASS  deterministic"), std::string::npos) << never;
  const std::string random = section(failed.out, "sync strategy random_rate");
  EXPECT_NE(random.find("PASS  trains"), std::string::npos) << random;
  EXPECT_NE(random.find("FAIL  deterministic: two runs of the same scenario and seed wrote different"), std::string::npos)
      << random;
  EXPECT_NE(failed.out.find("2 of 4 checks passed"), std::string::npos) << failed.out;
  RecordProperty("check_plugin_wrong_strategies", failed.out);

  // Lab 6's asynchronous run with the plug-in's strategy in place of async.
  std::string lab = read_file(std::filesystem::path(DTSIM_SOURCE_DIR) / "scenarios" / "course" / "06-async.yaml");
  const std::size_t strategy = lab.find("strategy: async");
  ASSERT_NE(strategy, std::string::npos);
  lab.replace(strategy, std::string("strategy: async").size(), "strategy: staleness_squared");
  const auto scenario = work / "staleness-squared.yaml";
  std::ofstream(scenario) << lab;
  const CommandResult refused = shell(quoted(dtsim) + " validate " + quoted(scenario));
  EXPECT_EQ(refused.exit_status, 2) << refused.out;
  EXPECT_NE(refused.out.find("staleness_squared"), std::string::npos) << refused.out;
  const CommandResult run = shell(quoted(dtsim) + " run -q " + quoted(scenario) + " --plugin " + quoted(example) +
                                  " -o " + quoted(work / "run"));
  ASSERT_EQ(run.exit_status, 0) << run.out;
  const nlohmann::json summary = nlohmann::json::parse(read_file(work / "run" / "summary.json"));
  EXPECT_GT(summary["result"]["updates_applied"].get<double>(), 0.0);
  EXPECT_LT(summary["result"]["final"]["val_loss"].get<double>(), summary["result"]["initial"]["val_loss"].get<double>());
}

}  // namespace
}  // namespace dtsim::testing
