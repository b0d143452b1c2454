// `dtsim plan` end to end: on a case small enough to simulate every candidate, the plan that simulates only the
// estimate's best three chooses the exhaustive best; what it writes; what it refuses.

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace dtsim::testing {
namespace {

namespace fs = std::filesystem;

/// plan.csv's rows after its header, each as its cells.
std::vector<std::vector<std::string>> plan_rows(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(read_file(file));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) rows.push_back(core::csv_cells(line));
  return rows;
}

/// Ranks of `values` from 1 (the least), ties sharing their mean rank.
std::vector<double> ranks_of(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) out[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return out;
}

/// Spearman's rho: Pearson's correlation of the ranks (Spearman 1904), 1 where both order alike.
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> x = ranks_of(a);
  const std::vector<double> y = ranks_of(b);
  const double n = static_cast<double>(x.size());
  const double mean = (n + 1.0) / 2.0;
  double covariance = 0.0;
  double x_spread = 0.0;
  double y_spread = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    covariance += (x[i] - mean) * (y[i] - mean);
    x_spread += (x[i] - mean) * (x[i] - mean);
    y_spread += (y[i] - mean) * (y[i] - mean);
  }
  return covariance / std::sqrt(x_spread * y_spread);
}

/// How a plan's estimate ranks its simulated candidates (plan.csv) against their simulation: rho, and the
/// `named` candidates whose two ranks lie furthest apart, each with both ranks and both iterations.
struct Agreement {
  std::size_t candidates = 0;
  double rho = 0.0;
  std::string worst;
};

Agreement agreement(const fs::path& plan_csv, std::size_t named) {
  const auto rows = plan_rows(plan_csv);
  std::vector<double> estimated;
  std::vector<double> simulated;
  for (const auto& row : rows) {
    estimated.push_back(std::stod(row[14]));  // estimate_s
    simulated.push_back(std::stod(row[15]));  // iteration_s
  }
  Agreement out{rows.size(), spearman(estimated, simulated), ""};
  const std::vector<double> by_estimate = ranks_of(estimated);
  const std::vector<double> by_simulation = ranks_of(simulated);
  std::vector<std::size_t> apart(rows.size());
  for (std::size_t i = 0; i < apart.size(); ++i) apart[i] = i;
  std::stable_sort(apart.begin(), apart.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(by_estimate[a] - by_simulation[a]) > std::abs(by_estimate[b] - by_simulation[b]);
  });
  for (std::size_t k = 0; k < std::min(named, apart.size()); ++k) {
    const std::size_t i = apart[k];
    out.worst += fmt::format("  {}: the estimate's {:g} ({:.4g} s), the simulation's {:g} ({:.4g} s)\n", rows[i][2],
                             by_estimate[i], estimated[i], by_simulation[i], simulated[i]);
  }
  return out;
}

/// The least rho over a plan's simulated candidates: the estimate exists to pick what to simulate, so among the
/// candidates it picks it must order them much as the simulation does. The aim is 0.8; what the estimate reaches
/// today (docs/planning.md: 0.65 on the dense plan, 0.40 on the mixture, from 0.54 and 0.15 before it counted every
/// shared link and priced all-to-alls by node), less 0.05, is held so that it can only get better.
constexpr double kLeastDenseAgreement = 0.60;
constexpr double kLeastMixtureAgreement = 0.35;

TEST(PlanCommand, TheBestOfTheEstimatesBestThreeIsTheBestOfEveryCandidateSimulated) {
  const fs::path folder = fresh_output_folder("plan_small");
  // GPT-2 Medium on two DGX A100 nodes, ZeRO 1, selective recomputation and 1F1B fixed: 70 splits, each in every
  // order of its degrees above 1 over the ranks: 182 candidates, all fitting.
  const std::string plan = "plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                           " --gpus 16 --zero 1 --recomputation selective --schedule 1f1b -j 2 -q -o ";
  const CommandResult all = run_dtsim(plan + (folder / "all").string() + " --top 1000");
  ASSERT_EQ(all.exit_status, 0) << all.err;
  const auto every = plan_rows(folder / "all" / "plan.csv");
  // Every candidate but those estimated exactly as one that holds no more memory (each such twin is listed with
  // the split that stands for it).
  const auto candidates = plan_rows(folder / "all" / "plan_candidates.csv");
  ASSERT_EQ(candidates.size(), 182U);
  const std::size_t twins = static_cast<std::size_t>(std::count_if(candidates.begin(), candidates.end(), [](const auto& row) {
    return !row[16].empty();  // same_estimate_as
  }));
  EXPECT_EQ(every.size(), candidates.size() - twins) << "every candidate simulated but the twins";
  EXPECT_GT(every.size(), 100U);
  const CommandResult three = run_dtsim(plan + (folder / "three").string() + " --top 3");
  ASSERT_EQ(three.exit_status, 0) << three.err;
  const auto best = plan_rows(folder / "three" / "plan.csv");
  // The estimate's best three, and beside them the scenario's own split and the best placed as the scenario
  // places its axes, where those are others.
  ASSERT_GE(best.size(), 3U);
  ASSERT_LE(best.size(), 5U);
  EXPECT_EQ(best[0][2], every[0][2]) << "the split chosen";
  EXPECT_EQ(best[0][15], every[0][15]) << "its simulated iteration";
  // Every candidate is listed with its verdict and estimate, the simulated ones marked.
  const std::string listed = read_file(folder / "three" / "plan_candidates.csv");
  EXPECT_EQ(std::count(listed.begin(), listed.end(), '\n'), 183);
  EXPECT_EQ(three.out, "") << "quiet";
  EXPECT_NE(read_file(folder / "three" / "report.html").find("Throughput against memory"), std::string::npos);
}

// Beside the estimate's best, the scenario's own split (t2 d8: the estimate's 51st, before it priced shared
// links) and the estimate's best split placed as the scenario places its axes (tensor, pipeline, data) are
// simulated: the figure a plan must beat, and the placement the estimate may misjudge.
TEST(PlanCommand, SimulatesTheScenariosOwnSplitAndTheBestInTheScenariosPlacement) {
  const fs::path folder = fresh_output_folder("plan_own_split");
  const CommandResult plan = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16 --zero 1 --recomputation selective --top 3 -j 2 -q -o " +
                                       (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  std::set<std::string> simulated;
  for (const auto& row : plan_rows(folder / "plan" / "plan.csv")) simulated.insert(row[2]);
  EXPECT_EQ(simulated.count("t2 p1 d8 m1 z1 selective"), 1U) << "the scenario's own split";
  const std::string best = plan_rows(folder / "plan" / "plan_candidates.csv").front()[1];
  EXPECT_EQ(simulated.count(best.substr(0, best.find(" placed "))), 1U) << best << " in the scenario's placement";
  EXPECT_LE(simulated.size(), 5U);
}

// GPT-2 Medium on two DGX A100 nodes, every schedule and placement (ZeRO 1, selective recomputation fixed): the
// estimate's best 40 simulated. Measured when the estimate shared only the first slowest link of a route: rho 0.54
// over the best 40 (0.34 over the best 20, 0.96 over all 365), the scenario's own placement, whose data rings
// cross the nodes, running 1.2 to 1.7 times its estimate.
TEST(PlanCommand, TheEstimateRanksADensePlansSimulatedCandidatesAsTheSimulationDoes) {
  const fs::path folder = fresh_output_folder("plan_dense_agreement");
  const CommandResult plan = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16 --zero 1 --recomputation selective --top 40 -j 2 -q -o " +
                                       (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const Agreement found = agreement(folder / "plan" / "plan.csv", 6);
  ASSERT_GE(found.candidates, 40U);
  EXPECT_GE(found.rho, kLeastDenseAgreement)
      << "over " << found.candidates << " simulated candidates; the estimate's worst disagreements:\n" << found.worst;
}

// A small mixture (a Llama-shaped decoder of 8 blocks, 8 experts, 2 a token) on two DGX H100 nodes, every expert
// degree, schedule and placement: the estimate's best 40 simulated. Measured when an all-to-all went whole over
// its group's slowest hop: rho 0.15 over the best 40 (0.33 over the best 20), expert groups spanning the nodes
// estimated at twice their simulated time.
TEST(PlanCommand, TheEstimateRanksAMixturesSimulatedCandidatesAsTheSimulationDoes) {
  const fs::path folder = fresh_output_folder("plan_mixture_agreement");
  const fs::path scenario = folder / "small-mixture.yaml";
  {
    std::ofstream out(scenario);
    out << "name: small-mixture\n"
           "cluster:\n  workers: 16\n  device: {name: h100, precision: mixed}\n"
           "  nodes:\n    - {type: dgx_h100, count: 2}\n"
           "topology: {kind: hierarchical, fabric: fat_tree, arity: 4, nic: per_device, network_model: analytical, "
           "link: {bandwidth: \"400Gbps\", latency: \"2us\"}}\n"
           "model: {kind: \"profile:llama\", blocks: 8, hidden_size: 1024, heads: 16, key_value_heads: 4, "
           "ffn_hidden_size: 3584, experts: 8, top_k: 2, sequence_length: 1024}\n"
           "training:\n  parallelism: {expert: 8, pipeline: 2}\n  recomputation: selective\n  batch: {global: 64}\n"
           "  optimizer: {kind: adam, learning_rate: 0.0001}\n  stop: {iterations: 1}\n";
  }
  const CommandResult plan = run_dtsim("plan " + scenario.string() + " --gpus 16 --zero 1 --recomputation selective "
                                       "--top 40 -j 2 -q -o " + (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const Agreement found = agreement(folder / "plan" / "plan.csv", 6);
  ASSERT_GE(found.candidates, 40U);
  EXPECT_GE(found.rho, kLeastMixtureAgreement)
      << "over " << found.candidates << " simulated candidates; the estimate's worst disagreements:\n" << found.worst;
}

// --keep-placement keeps the scenario's order: the 70 splits once each.
TEST(PlanCommand, KeepingThePlacementTriesEachSplitOnce) {
  const fs::path folder = fresh_output_folder("plan_kept_placement");
  const CommandResult kept = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16 --zero 1 --recomputation selective --schedule 1f1b --keep-placement "
                                       "--top 1 -q -o " + (folder / "plan").string());
  ASSERT_EQ(kept.exit_status, 0) << kept.err;
  const auto candidates = plan_rows(folder / "plan" / "plan_candidates.csv");
  EXPECT_EQ(candidates.size(), 70U);
  for (const auto& row : candidates) EXPECT_EQ(row[12], "t-p-d") << row[1];
}

TEST(PlanCommand, RefusesWhatItCannotPlanBeforeWritingAnything) {
  const fs::path folder = fresh_output_folder("plan_refusals");
  const fs::path scenario = scenario_path("plan/gpt2-medium-a100-x16.yaml");
  const CommandResult uneven = run_dtsim("plan " + scenario.string() + " --gpus 12 -o " + (folder / "out").string());
  EXPECT_EQ(uneven.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(uneven.err),
            "dtsim plan: error: --gpus: 12 devices do not fill whole nodes of 8\n"
            "  hint: give multiples of the devices per node\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
  const CommandResult real = run_dtsim("plan " + scenario_path("quickstart.yaml").string() + " --gpus 4 -o " +
                                       (folder / "out").string());
  EXPECT_EQ(real.exit_status, 2);
  EXPECT_NE(real.err.find("error: model.kind: a plan splits a layer table (a `profile:` model)"), std::string::npos) << real.err;
  EXPECT_FALSE(fs::exists(folder / "out"));
}

// A plan by energy needs runs that meter it: without an `energy:` section it would rank by throughput unsaid.
TEST(PlanCommand, RefusesTheEnergyObjectiveWithoutAnEnergySection) {
  const fs::path folder = fresh_output_folder("plan_energy_unmetered");
  const fs::path scenario = scenario_path("plan/gpt2-medium-a100-x16.yaml");
  const CommandResult energy = run_dtsim("plan " + scenario.string() + " --gpus 16 --objective energy -o " +
                                         (folder / "out").string());
  EXPECT_EQ(energy.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(energy.err),
            scenario.string() + ": error: energy: --objective energy ranks the plans by the joules their runs meter, and "
                                "a run meters none without an `energy:` section\n"
                                "  hint: add `energy: {}` to the scenario (the devices' idle_power and busy_power, the "
                                "catalog's or declared), or choose --objective tokens_per_s or cost\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

// A degree fixed above the schema's bound is refused at its flag, before anything is read or written.
TEST(PlanCommand, RefusesAFixedDegreeAboveWhatAScenarioTakes) {
  const fs::path folder = fresh_output_folder("plan_fixed_above_bound");
  const CommandResult deep = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 4096 --pipeline 4096 -o " + (folder / "out").string());
  EXPECT_EQ(deep.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(deep.err),
            "dtsim plan: error: --pipeline: must be between 1 and 1024 (training.parallelism.pipeline of a scenario), "
            "got 4096\n"
            "  hint: give --pipeline 1024 or less, or leave it out\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

// One sequence a batch over 2,048 devices: every split is a 2,048-device model-parallel group, and the first one
// enumerated has 2,048 stages, more than a scenario takes. It is discarded by its key as every other candidate a
// run would refuse, and the plan goes on (nothing fits: GPT-2 Medium's 16 heads and 24 blocks hold 416 devices at
// most), instead of stopping at an error in a generated file it never wrote.
TEST(PlanCommand, DiscardsCandidatesAboveTheSchemasBoundsAndGoesOn) {
  const fs::path folder = fresh_output_folder("plan_candidates_above_bounds");
  const fs::path scenario = folder / "one-sequence.yaml";
  {
    std::ofstream out(scenario);
    out << "name: one-sequence\n"
           "cluster:\n  workers: 8\n  device: {name: a100, precision: mixed}\n"
           "  nodes:\n    - {type: dgx_a100, count: 1}\n"
           "topology: {kind: hierarchical, fabric: fat_tree, arity: 4, nic: per_device, network_model: analytical, "
           "link: {bandwidth: \"100Gbps\", latency: \"5us\"}}\n"
           "model: {kind: \"profile:gpt2_medium\"}\n"
           "training:\n  parallelism: {tensor: 8}\n  batch: {global: 1}\n"
           "  optimizer: {kind: adam, learning_rate: 0.0001}\n  stop: {iterations: 1}\n";
  }
  const CommandResult wide = run_dtsim("plan " + scenario.string() + " --gpus 2048 --zero 1 --recomputation selective "
                                       "--schedule 1f1b -q -o " + (folder / "out").string());
  ASSERT_EQ(wide.exit_status, 0) << wide.err;
  const auto candidates = plan_rows(folder / "out" / "plan_candidates.csv");
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front()[1], "t1 p2048 d1 m1 z1 selective 1f1b");
  EXPECT_EQ(candidates.front()[18], "training.parallelism.pipeline");
  EXPECT_EQ(candidates.front()[19], "must be between 1 and 1024, got 2048");
  for (const auto& row : candidates) EXPECT_FALSE(row[18].empty()) << row[1] << " fits";
  EXPECT_TRUE(plan_rows(folder / "out" / "plan.csv").empty());
}

// A scenario of several jobs on one cluster has no one split to search: refused before anything is simulated.
TEST(PlanCommand, RefusesAScenarioOfSeveralJobsBeforeSimulatingAnything) {
  const fs::path folder = fresh_output_folder("plan_jobs");
  const fs::path scenario = folder / "two-jobs.yaml";
  const std::string text = read_file(scenario_path("plan/gpt2-medium-a100-x16.yaml"));
  std::ofstream(scenario) << text << "jobs:\n  - {name: a, workers: 8}\n  - {name: b, workers: 8}\n";
  const auto first_job = std::count(text.begin(), text.end(), '\n') + 2;
  const CommandResult run = run_dtsim("plan " + scenario.string() + " --gpus 16 -o " + (folder / "out").string());
  EXPECT_EQ(run.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(run.err),
            scenario.string() + ":" + std::to_string(first_job) +
                ":5: error: jobs: a plan splits one job over the devices, and this scenario shares the cluster "
                "between jobs (2 in `jobs`)\n"
                "  hint: plan one job's scenario: its sections at the top level, without `jobs:`\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

}  // namespace
}  // namespace dtsim::testing
