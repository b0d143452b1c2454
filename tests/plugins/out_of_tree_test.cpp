// A plug-in as a student builds it: dtsim installed into a prefix, the example (examples/plugins/) configured
// and built outside the tree against the installed package, then loaded by the installed dtsim. The example
// passes `dtsim check-plugin`; the wrong plug-ins are reported (a wrong sum and closed form, a crash, a hang)
// without bringing the grader down; `dtsim collective` and `dtsim run` use the example by name.
// One test: the install and the builds are what it tests, and they take most of its time.

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

TEST(PluginOutOfTree, TheExampleBuildsAgainstTheInstalledPackageAndPassesAndWrongOnesAreReported) {
  const auto work = fresh_output_folder("plugin-out-of-tree");
  const auto prefix = work / "prefix";
  const CommandResult install = shell("cmake --install " + quoted(DTSIM_BUILD_DIR) + " --prefix " + quoted(prefix));
  ASSERT_EQ(install.exit_status, 0) << install.out;
  const auto dtsim = prefix / "bin" / "dtsim";
  ASSERT_TRUE(std::filesystem::exists(prefix / "include" / "dtsim" / "dtsim" / "plugin.hpp"));
  ASSERT_TRUE(std::filesystem::exists(prefix / "lib" / "cmake" / "dtsim" / "dtsimConfig.cmake"));

  const auto example = build_example(prefix, work, "reduce-broadcast", "reduce_broadcast");
  const auto wrong = build_example(prefix, work, "wrong", "wrong_allreduces");
  ASSERT_TRUE(std::filesystem::exists(example));
  ASSERT_TRUE(std::filesystem::exists(wrong));

  const CommandResult passed = shell(quoted(dtsim) + " check-plugin " + quoted(example));
  EXPECT_EQ(passed.exit_status, 0) << passed.out;
  EXPECT_NE(passed.out.find("loaded: allreduce algorithm 'reduce_broadcast'"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find("PASS  values"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find("PASS  closed form"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find("PASS  deterministic"), std::string::npos) << passed.out;
  EXPECT_NE(passed.out.find("3 of 3 checks passed"), std::string::npos) << passed.out;
  RecordProperty("check_plugin_example", passed.out);

  // A generous limit: a cold, busy machine must not turn a slow case into a hang.
  const CommandResult failed = shell(quoted(dtsim) + " check-plugin --timeout 20 " + quoted(wrong));
  EXPECT_EQ(failed.exit_status, 1) << failed.out;
  const auto section = [&](const std::string& name) {
    const std::size_t begin = failed.out.find("\nallreduce/" + name + "\n");
    EXPECT_NE(begin, std::string::npos) << failed.out;
    if (begin == std::string::npos) return std::string();
    const std::size_t end = failed.out.find("\n\n", begin + 1);
    return failed.out.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  };
  const std::string forgets = section("forgets_root");
  EXPECT_NE(forgets.find("FAIL  values: p = 2, 1 elements: rank 0 element 0 is 2, expected 3"), std::string::npos) << forgets;
  EXPECT_NE(forgets.find("FAIL  closed form: on a mesh of 2 ranks, 1 KiB"), std::string::npos) << forgets;
  EXPECT_NE(forgets.find("PASS  deterministic"), std::string::npos) << forgets;
  EXPECT_NE(section("crashes").find("CRASH values: p = 2, 1 elements: crashed: signal 11"), std::string::npos) << failed.out;
  const std::string hangs = section("hangs");
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
}

}  // namespace
}  // namespace dtsim::testing
