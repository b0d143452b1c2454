#include "sim/checks/simulation_messages.hpp"

#include "../scenario/scenario_text.hpp"
#include "refusal_of.hpp"

#include <gtest/gtest.h>

namespace dtsim::checks {
namespace {

const std::string kFatTree = test::large_fat_tree(65536);

std::string refusal(const std::string& text) { return test::refusal_of(text, check_simulation_messages); }

const std::string kHint =
    "  hint: use topology.network_model: analytical, which times each phase of a collective at once (a GPT-2 XL step "
    "on 65,536 GPUs in about 11 s, docs/validation.md), or fewer workers";

// ResNet-50's gradients go in 2 buckets, each a ring allreduce of 2(p-1) rounds a rank; on a fat tree every rank's
// flows share links, and a message takes 6 ns a rank: 65,536 workers some 78 days a step, 8,192 3.7 hours, 4,096
// 27 minutes (measured: 25 s at 1,024, 201 s at 2,048).
TEST(SimulationMessages, AFatTreesRingRoundsDifferAndAreCountedOneByOne) {
  EXPECT_EQ(refusal(kFatTree),
            "s.yaml:3:12: error: cluster.workers: message by message, a step of 65536 workers posts at least 17.2 "
            "billion messages (2 gradient allreduces of 131070 messages a rank), some 78 days of wall time a step on 2 "
            "cores, past the hour a step may take\n" + kHint);
  EXPECT_EQ(refusal(testing::replace_once(kFatTree, "65536", "8192")),
            "s.yaml:3:12: error: cluster.workers: message by message, a step of 8192 workers posts at least 268 million "
            "messages (2 gradient allreduces of 16382 messages a rank), some 3.7 hours of wall time a step on 2 cores, "
            "past the hour a step may take\n" + kHint);
  EXPECT_EQ(refusal(testing::replace_once(kFatTree, "65536", "4096")), "no error");
  EXPECT_EQ(refusal(testing::replace_once(kFatTree, "  arity: 16\n", "  arity: 16\n  network_model: analytical\n")),
            "no error");
}

// On a ring of equal links a phase's rounds are identical and run as two transfers a rank: GPT-2 XL's 73 buckets on
// 65,536 workers, 19 million transfers, took 561 s. A straggler sets the rounds apart: each is a message again.
TEST(SimulationMessages, IdenticalRingRoundsRunAsOneTransferUnlessAStragglerSetsThemApart) {
  const std::string ring = testing::replace_once(testing::replace_once(kFatTree, "  kind: fat_tree\n  arity: 16\n", "  kind: ring\n"),
                                                 "profile:resnet50", "profile:gpt2_xl");
  EXPECT_EQ(refusal(ring), "no error");
  EXPECT_EQ(refusal(ring + "stragglers: [{workers: [3], slowdown: 2}]\n"),
            "s.yaml:3:12: error: cluster.workers: message by message, a step of 65536 workers posts at least 627 "
            "billion messages (73 gradient allreduces of 131070 messages a rank), some 7.8 years of wall time a step "
            "on 2 cores, past the hour a step may take\n" + kHint);
}

}  // namespace
}  // namespace dtsim::checks
