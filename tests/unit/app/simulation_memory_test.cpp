#include "sim/checks/simulation_memory.hpp"

#include "../scenario/scenario_text.hpp"
#include "refusal_of.hpp"

#include <gtest/gtest.h>

namespace dtsim::checks {
namespace {

const std::string kLarge = test::large_fat_tree(4096);

constexpr double kMiB = 1024.0 * 1024.0;

std::string refusal(const std::string& text, double available) {
  return test::refusal_of(text, [available](const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
    check_simulation_memory(s, setup, available);
  });
}

TEST(SimulationMemory, MessageByMessageEveryWorkerIsSimulated) {
  EXPECT_EQ(refusal(kLarge, 100 * kMiB),
            "s.yaml:3:12: error: cluster.workers: simulating 4096 of the 4096 workers message by message needs about "
            "256 MiB of memory (64 KiB a worker), and this machine has 100 MiB available\n"
            "  hint: use topology.network_model: analytical, under which a timing-only data-parallel job of equal "
            "workers simulates one worker for all (docs/how-it-works.md), or fewer workers");
  EXPECT_EQ(refusal(kLarge, 300 * kMiB), "no error");
}

TEST(SimulationMemory, AnalyticalAlikeWorkersSimulateOne) {
  const std::string analytical =
      testing::replace_once(kLarge, "  arity: 16\n", "  arity: 16\n  network_model: analytical\n");
  EXPECT_EQ(refusal(analytical, 1 * kMiB), "no error");
  // A straggler makes the workers differ: each is simulated.
  const std::string straggler = analytical + "stragglers: [{workers: [3], slowdown: 2}]\n";
  EXPECT_EQ(refusal(straggler, 100 * kMiB),
            "s.yaml:3:12: error: cluster.workers: simulating 4096 of the 4096 workers on the analytical network needs "
            "about 256 MiB of memory (64 KiB a worker), and this machine has 100 MiB available\n"
            "  hint: use fewer workers, or run on a machine with more memory");
}

std::string address_refusal(const std::string& text, double limit) {
  return test::refusal_of(text, [limit](const scenario::Scenario& s, const runtime::TrainingSetup& setup) {
    check_address_space(s, setup, limit);
  });
}

// Under `ulimit -v` SimGrid aborted ("Failed to allocate stack") once the actors' 8 MiB stacks outgrew the limit.
TEST(SimulationMemory, StacksBeyondTheAddressSpaceLimitAreRefusedUpFront) {
  EXPECT_EQ(address_refusal(kLarge, 8000000.0 * 1024.0),
            "s.yaml:3:12: error: cluster.workers: simulating 4096 of the 4096 workers maps at least 32 GiB of stacks "
            "(8 MiB an actor, one a worker at least), more than the 7.629 GiB of address space this process may map "
            "(ulimit -v)\n"
            "  hint: raise the limit (ulimit -v unlimited: a stack is resident only as deep as its actor goes), or use "
            "fewer workers");
  EXPECT_EQ(address_refusal(kLarge, 64.0 * 1024.0 * kMiB), "no error");
}

}  // namespace
}  // namespace dtsim::checks
