// dtsim plan's search: the screen refuses exactly what `dtsim run` refuses, every discard says why, and the
// estimate is the closed form it documents where only compute (or only the gradients' ring) counts.

#include "sim/app/plan_candidates.hpp"
#include "sim/app/plan_estimate.hpp"
#include "sim/app/plan_search.hpp"

#include "models/device_share.hpp"
#include "models/pipeline_plan.hpp"
#include "sim/app/registries.hpp"
#include "sim/app/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/scenario/parallel_layout.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

#include <map>

namespace dtsim::app {
namespace {

/// GPT-2 XL (48 layers, 25 heads, 1.56B parameters) on one DGX-1's eight 32 GiB V100s, in batches of 64
/// sequences: held whole with Adam it needs 25 GiB before activations, so memory (a few whole micro-batches of
/// 64 sequences), the heads (no tensor degree but 1 divides 25) and ZeRO's rules all discard some splits.
const std::string kPlanned = R"(name: planned
cluster:
  workers: 8
  device: {name: v100, precision: mixed}
  nodes:
    - {type: dgx1, count: 1}
topology: {kind: hierarchical, fabric: fat_tree, arity: 4, network_model: analytical, link: {bandwidth: "100Gbps", latency: "2us"}}
model: {kind: "profile:gpt2_xl"}
training:
  batch: {global: 64}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";

scenario::Scenario with_point(const std::string& text, const std::string& point) {
  return scenario::read_scenario_document_text(test::scenario_format(), text + "sweep:\n  points:\n    - " + point + "\n",
                                               "planned.yaml")
      .points.front();
}

models::ModelProfile profile_of(const scenario::Scenario& s, const Registries& registries) {
  return registries.models.find(s.model.kind.value).factory.profile(core::View(&s.model.section, "model"));
}

TEST(PlanSearch, TheScreenRefusesExactlyWhatARunOfTheCandidateRefuses) {
  const Registries registries = make_builtin_registries();
  const scenario::Scenario base = with_point(kPlanned, "{training.parallelism.data: 8}");
  const models::ModelProfile profile = profile_of(base, registries);
  std::int64_t undivided = 0;
  PlanSpace space;
  space.recomputation = models::Recomputation::Selective;
  const std::vector<PlanCandidate> candidates = enumerate_candidates(space, 8, profile.shape, 64, undivided);
  ASSERT_GT(candidates.size(), 100U);
  scenario::Scenario screened = base;
  const std::vector<analysis::PlanRow> rows = screen_candidates(candidates, 64, screened, profile, registries, {});
  std::map<std::string, const analysis::PlanRow*> by_split;
  for (const analysis::PlanRow& row : rows) by_split[row.split] = &row;
  std::map<std::string, int> verdicts;
  // Every third candidate, read from its own scenario text and checked as `dtsim run` checks it.
  for (std::size_t i = 0; i < candidates.size(); i += 3) {
    const PlanCandidate& c = candidates[i];
    std::string refused;
    try {
      check_scenario(with_point(kPlanned, sweep_point_yaml(c, 64, base)), registries);
    } catch (const core::InputError& error) {
      refused = error.what();
    }
    const analysis::PlanRow& row = *by_split.at(c.label());
    EXPECT_EQ(refused.empty(), row.discarded.empty()) << c.label() << ": " << refused << " / " << row.detail;
    if (!refused.empty()) {
      EXPECT_NE(refused.find(row.detail), std::string::npos) << c.label() << ": " << refused;
    }
    ++verdicts[row.discarded.empty() ? "fits" : row.discarded];
  }
  // The case exercises every kind of verdict.
  EXPECT_GT(verdicts["fits"], 10);
  EXPECT_GT(verdicts["memory"], 3);
  EXPECT_GT(verdicts["training.parallelism.tensor"], 3);
}

TEST(PlanSearch, EveryDiscardedCandidateSaysWhyAndTheCountsAddUp) {
  const Registries registries = make_builtin_registries();
  scenario::Scenario s = with_point(kPlanned, "{training.parallelism.data: 8}");
  const models::ModelProfile profile = profile_of(s, registries);
  std::int64_t undivided = 0;
  const std::vector<PlanCandidate> candidates = enumerate_candidates({}, 8, profile.shape, 64, undivided);
  const std::vector<analysis::PlanRow> rows = screen_candidates(candidates, 64, s, profile, registries, {});
  ASSERT_EQ(rows.size(), candidates.size());
  std::int64_t discarded = 0;
  bool fitting_part = true;
  for (const analysis::PlanRow& row : rows) {
    if (row.discarded.empty()) {
      EXPECT_TRUE(fitting_part) << "the fitting come first";
      EXPECT_GT(row.estimate_s, 0.0) << row.split;
      continue;
    }
    fitting_part = false;
    ++discarded;
    EXPECT_FALSE(row.detail.empty()) << row.split;
  }
  std::int64_t counted = 0;
  for (const analysis::PlanDiscard& d : analysis::count_discards(rows, undivided, 64)) counted += d.count;
  EXPECT_EQ(counted, discarded + undivided);
  EXPECT_GT(discarded, 0);
}

/// A device at full efficiency without a memory bandwidth, over links too fast to count: an iteration is the
/// slowest stage's compute over m + p - 1 micro-batch slots under 1F1B (Narayanan et al. 2021).
TEST(PlanEstimate, ComputeAloneIsTheSlowestStageTimesTheMicroBatchesAndTheBubble) {
  const Registries registries = make_builtin_registries();
  const std::string fast = R"(name: fast
cluster:
  workers: 8
  device: {name: flat, peak_flops: "100TFLOPS", efficiency: 1, memory: "1000GiB"}
topology: {kind: fat_tree, arity: 4, network_model: analytical, link: {bandwidth: "1000000Tbps", latency: "0us"}}
model: {kind: "profile:gpt2_small"}
training:
  batch: {global: 32}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  scenario::Scenario s = with_point(fast, "{training.parallelism.pipeline: 4, training.parallelism.tensor: 2, "
                                          "training.parallelism.microbatches: 8, training.parallelism.data: 1}");
  const models::ModelProfile profile = profile_of(s, registries);
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  const SplitEstimator estimator(profile, graph);
  const SplitEstimate estimate = estimator.estimate(s);
  const std::vector<std::size_t> cuts = models::split_into_stages(profile, 4);
  double slowest = 0.0;
  for (std::size_t stage = 0; stage < 4; ++stage) {
    const models::ModelProfile layers =
        models::device_share(models::stage_profile(profile, cuts[stage], cuts[stage + 1]), scenario::device_share_of(s.training));
    double seconds = 0.0;
    for (const models::LayerProfile& layer : layers.layers) seconds += compute::layer_seconds(layer, 4.0, s.cluster.device_of(0));
    slowest = std::max(slowest, seconds);
  }
  EXPECT_NEAR(estimate.compute_s, 8.0 * slowest, 1e-9 * slowest);
  EXPECT_NEAR(estimate.iteration_s, (8.0 + 3.0) * slowest, 1e-6 * slowest);
}

/// Data parallelism alone over a ring of equal links: the gradients' allreduce is 2 (d - 1) rounds of latency
/// plus P x 4 bytes / d over the bandwidth.
TEST(PlanEstimate, TheGradientsRingIsTheAllreducesClosedForm) {
  const Registries registries = make_builtin_registries();
  const std::string ring = R"(name: ring
cluster:
  workers: 4
  device: {name: flat, peak_flops: "100TFLOPS", efficiency: 1, memory: "1000GiB"}
topology: {kind: ring, network_model: analytical, link: {bandwidth: "8Gbps", latency: "5us"}}
model: {kind: "profile:gpt2_small"}
training:
  batch: {per_worker: 2}
  optimizer: {kind: adam, learning_rate: 0.0001}
  stop: {iterations: 1}
)";
  const scenario::Scenario s = with_point(ring, "{training.parallelism.data: 4}");
  const models::ModelProfile profile = profile_of(s, registries);
  const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
  const SplitEstimate estimate = SplitEstimator(profile, graph).estimate(s);
  const double bytes = profile.parameters() * s.training.wire.gradients;
  EXPECT_NEAR(estimate.gradients_s, 2.0 * 3.0 * (5e-6 + bytes / 4.0 / 1e9), 1e-9);
  EXPECT_EQ(estimate.pipeline_s, 0.0);
  EXPECT_EQ(estimate.bubble_s, 0.0);
}

}  // namespace
}  // namespace dtsim::app
