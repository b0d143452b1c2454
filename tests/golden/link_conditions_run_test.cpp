// Packet loss on the wide-area links of two datacenters caps an outer step's ring at one TCP flow's rate, as the
// closed form says.

#include "datacenter_scenarios.hpp"
#include "run_dtsim.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace dtsim::testing {
namespace {

TEST(LinkConditionRuns, LossCapsAnOuterStepsRingAtOneTcpFlowsRate) {
  const std::filesystem::path folder = fresh_output_folder("link-conditions-loss");
  const std::string lossy = "link_conditions: [{class: wan, loss: 0.0001}]\n";
  const nlohmann::json two = run_result(folder, "two", gpt2_two_sites("{strategy: diloco, inner_steps: 4}", 8) + lossy);
  const nlohmann::json one = run_result(folder, "one", gpt2_two_sites("{strategy: diloco, inner_steps: 8}", 8) + lossy);
  const double outer_s = two["simulated_s"].get<double>() - one["simulated_s"].get<double>();
  // As Datacenters.AnOuterStepTakesTheRingsClosedFormOverTheWideAreaLink, the wide-area link at Mathis's rate
  // for 40 ms each way and a loss of 1e-4: 1.22 x 1460 / (0.08 x 0.01) bytes/s.
  const double rate = 1.22 * 1460.0 / (2.0 * 0.04 * 0.01);
  const double chunk_bytes = two["parameters"].get<double>() * 2.0 / 16.0;
  const double step_s = 2e-6 + 40e-3 + 2e-6 + chunk_bytes / rate;
  EXPECT_NEAR(outer_s / (2.0 * 15.0 * step_s), 1.0, 1e-4) << outer_s << " s";
  // Striped over 16 flows, 16 times the rate.
  const std::string striped = "link_conditions: [{class: wan, loss: 0.0001, streams: 16}]\n";
  const nlohmann::json two16 =
      run_result(folder, "two16", gpt2_two_sites("{strategy: diloco, inner_steps: 4}", 8) + striped);
  const nlohmann::json one16 =
      run_result(folder, "one16", gpt2_two_sites("{strategy: diloco, inner_steps: 8}", 8) + striped);
  const double striped_step_s = 2e-6 + 40e-3 + 2e-6 + chunk_bytes / (16.0 * rate);
  EXPECT_NEAR((two16["simulated_s"].get<double>() - one16["simulated_s"].get<double>()) / (2.0 * 15.0 * striped_step_s),
              1.0, 1e-4);
}

TEST(LinkConditionRuns, ConditionsNameLinksAndChangeSomething) {
  const std::filesystem::path folder = fresh_output_folder("link-conditions-refused");
  const auto refusal = [&](const std::string& name, const std::string& text) {
    std::ofstream(folder / (name + ".yaml")) << text;
    const CommandResult result = run_dtsim(fmt::format("validate {}", (folder / (name + ".yaml")).string()));
    EXPECT_EQ(result.exit_status, 2) << result.err;
    return result.err;
  };
  const std::string base = two_sites("{strategy: bsp}");
  EXPECT_NE(refusal("class", base + "link_conditions: [{class: ocean, loss: 0.001}]\n")
                .find("link_conditions[0].class: the 'sites' topology has no link of class 'ocean'\n"
                      "  hint: its classes: site, wan"),
            std::string::npos);
  EXPECT_NE(refusal("nothing", base + "link_conditions: [{class: wan}]\n")
                .find("link_conditions[0].loss: missing required key\n  hint: add `loss: 0.0001`"),
            std::string::npos);
  EXPECT_NE(refusal("nowhere", base + "link_conditions: [{loss: 0.001}]\n")
                .find("link_conditions[0]: a link condition names no link"),
            std::string::npos);
  EXPECT_NE(refusal("name", base + "link_conditions: [{links: [a.switch--c.switch], loss: 0.001}]\n")
                .find("link_conditions[0].links[0]: the topology has no link named 'a.switch--c.switch'"),
            std::string::npos);
}

}  // namespace
}  // namespace dtsim::testing
