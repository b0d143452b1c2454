// `dtsim plan` end to end: on a case small enough to simulate every candidate, the plan that simulates only the
// estimate's best three chooses the exhaustive best; what it writes; what it refuses.

#include "run_dtsim.hpp"
#include "sim/core/csv.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
    estimated.push_back(std::stod(row[15]));  // estimate_s
    simulated.push_back(std::stod(row[16]));  // iteration_s
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
    return !row[17].empty();  // same_estimate_as
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
  EXPECT_EQ(best[0][16], every[0][16]) << "its simulated iteration";
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

TEST(PlanCommand, ModulesListedForSelectiveRecomputationKeepItSelective) {
  // Recomputation none or full with the modules listed would be refused by every candidate's scenario.
  const fs::path folder = fresh_output_folder("plan_recompute_modules");
  const fs::path scenario = folder / "listed-modules.yaml";
  std::ofstream(scenario) << "name: listed-modules\n"
                             "cluster:\n  workers: 16\n  device: {name: h100, precision: mixed}\n"
                             "  nodes:\n    - {type: dgx_h100, count: 2}\n"
                             "topology: {kind: hierarchical, fabric: fat_tree, arity: 4, nic: per_device, "
                             "network_model: analytical, link: {bandwidth: \"400Gbps\", latency: \"2us\"}}\n"
                             "model: {kind: \"profile:llama2_7b\", sequence_length: 1024}\n"
                             "training:\n  recomputation: selective\n  recompute_modules: [mlp]\n  batch: {global: 64}\n"
                             "  optimizer: {kind: adam, learning_rate: 0.0001}\n  stop: {iterations: 1}\n";
  const CommandResult plan = run_dtsim("plan " + scenario.string() + " --gpus 16 --zero 1 --pipeline 1 --top 2 -j 2 -q -o " +
                                       (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const std::string header = read_file(folder / "plan" / "plan.csv").substr(0, read_file(folder / "plan" / "plan.csv").find('\n'));
  const std::vector<std::string> columns = core::csv_cells(header);
  const auto column = std::find(columns.begin(), columns.end(), "recomputation");
  ASSERT_NE(column, columns.end()) << header;
  const auto rows = plan_rows(folder / "plan" / "plan.csv");
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) EXPECT_EQ(row.at(static_cast<std::size_t>(column - columns.begin())), "selective");
}

// A budget with failures: each plan's cost per million tokens is its own projection's (device-hours over the
// goodput expected), the figure --objective cost ranks by, not the failure-free one.
TEST(PlanCommand, TheCostPerTokenOfABudgetWithFailuresIsItsProjections) {
  const fs::path folder = fresh_output_folder("plan_cost_with_failures");
  const fs::path scenario = folder / "budget.yaml";
  std::ofstream(scenario) << "include: " << scenario_path("plan/gpt2-medium-a100-x16.yaml").string() << "\n"
                          << "training: {stop: {tokens: 1000000000}}\n"
                             "energy: {carbon_intensity: 400gCO2/kWh, price_per_device_hour: 2, currency: USD}\n"
                             "failures: {random: {mtbf: 1600s}, checkpoint: {every: 100, storage_bandwidth: 10GB/s}, "
                             "restart_time: 5s}\n";
  const CommandResult plan = run_dtsim("plan " + scenario.string() + " --gpus 16 --top 2 --objective cost -j 2 -q -o " +
                                       (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const auto rows = plan_rows(folder / "plan" / "plan.csv");
  ASSERT_GE(rows.size(), 2U);
  for (const auto& row : rows) {
    const nlohmann::json summary = nlohmann::json::parse(read_file(folder / "plan" / row[22] / "summary.json"));
    const nlohmann::json& projection = summary.at("result").at("projection");
    const double own = projection.at("cost").get<double>() / projection.at("tokens").get<double>() * 1e6;
    EXPECT_NEAR(std::stod(row[21]), own, 1e-5 * own) << row[2];
  }
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
  for (const auto& row : candidates) EXPECT_EQ(row[13], "t-p-d") << row[1];
}

// A space past the candidates a search screens (planner::kMostCandidates) is refused once counted, before any is
// screened or anything written: a GPT of 8,192-token sequences with a batch of 1,290,240 over 4,096 H100 has 12.7
// million (every divisor of a replica's batch a micro-batch count), some 40 minutes of screening. Fixing the choices named
// narrows it.
TEST(PlanCommand, RefusesASpacePastTheCandidatesASearchScreens) {
  const fs::path folder = fresh_output_folder("plan_large_space");
  const fs::path scenario = folder / "large-space.yaml";
  std::ofstream(scenario) << "name: large-space\n"
                             "cluster:\n  workers: 4096\n  device: {name: h100}\n"
                             "  nodes:\n    - {type: dgx_h100, count: 512}\n"
                             "topology: {kind: hierarchical, fabric: fat_tree, arity: 32, nic: per_device, "
                             "network_model: analytical, link: {bandwidth: \"400Gbps\", latency: \"2us\"}}\n"
                             "model: {kind: \"profile:gpt\", blocks: 96, hidden_size: 12288, heads: 96, "
                             "sequence_length: 8192}\n"
                             "training:\n  parallelism: {tensor: 8, pipeline: 8, microbatches: 64}\n"
                             "  batch: {global: 1290240}\n  optimizer: {kind: adam, learning_rate: 0.0001}\n"
                             "  stop: {iterations: 1}\n";
  const CommandResult refused = run_dtsim("plan " + scenario.string() + " --gpus 4096 -o " + (folder / "out").string());
  EXPECT_EQ(refused.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(refused.err),
            "dtsim plan: error: --gpus: 4096 devices leave 12672720 candidates to screen, more than the 2000000 a "
            "search screens (some minutes)\n"
            "  hint: fix some of the choices the search makes (--tensor, --pipeline, --context, --expert-tensor, "
            "--expert, --microbatches, --zero, --recomputation, --schedule), or plan fewer devices\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
  // Fixed, the choices named leave a space the search screens: here one whose 30 candidates hold too many
  // sequences' activations to fit, which it says after screening them.
  const CommandResult narrowed = run_dtsim("plan " + scenario.string() +
                                           " --gpus 4096 --tensor 8 --pipeline 8 --microbatches 64 --zero 1 "
                                           "--recomputation full --schedule 1f1b --top 1 -q -o " +
                                           (folder / "narrowed").string());
  EXPECT_EQ(narrowed.exit_status, 2);
  EXPECT_NE(narrowed.err.find("fits: 30 candidates, every one discarded"), std::string::npos) << narrowed.err;
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

// A scenario's even pipeline split is kept by every candidate (those whose stages do not divide the blocks are
// discarded by it); a layout names one split's stages, and a plan of others is refused at it.
TEST(PlanCommand, PlansUnderAnEvenPipelineSplitAndRefusesALayout) {
  const fs::path folder = fresh_output_folder("plan_stage_split");
  const std::string text = read_file(scenario_path("moe/llama-moe-h100-folded.yaml"));
  const std::string line = "expert_tensor: 1, microbatches: 4}";
  ASSERT_NE(text.find(line), std::string::npos);
  const auto with = [&](const std::string& name, const std::string& split) {
    std::string changed = text;
    changed.replace(changed.find(line), line.size(), "expert_tensor: 1, microbatches: 4, " + split + "}");
    std::ofstream(folder / name) << changed;
    return folder / name;
  };
  const fs::path even = with("even.yaml", "pipeline_split: even, pipeline_split_counts: [embedding, loss]");
  const CommandResult planned =
      run_dtsim("plan " + even.string() + " --gpus 16 --top 1 -j 1 -q -o " + (folder / "even").string());
  EXPECT_EQ(planned.exit_status, 0) << planned.err;
  EXPECT_TRUE(fs::exists(folder / "even" / "plan.csv"));
  const fs::path laid = with("layout.yaml", "pipeline_layout: \"Ett|ttL\"");
  const CommandResult refused =
      run_dtsim("plan " + laid.string() + " --gpus 16 --top 1 -j 1 -q -o " + (folder / "layout").string());
  EXPECT_EQ(refused.exit_status, 2);
  EXPECT_NE(without_sanitizer_notices(refused.err)
                .find("error: training.parallelism.pipeline_layout: a layout names the stages of one split, and a plan "
                      "tries splits of other stage counts\n"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(folder / "layout"));
}

// A plan times each split's bubble in closed form over one copy of the stages: a scenario under DualPipe, and
// --schedule dualpipe, are refused before anything is written.
TEST(PlanCommand, RefusesDualPipe) {
  const fs::path folder = fresh_output_folder("plan_dualpipe");
  const std::string text = read_file(scenario_path("moe/llama-moe-h100-folded.yaml"));
  const std::string line = "expert_tensor: 1, microbatches: 4}";
  ASSERT_NE(text.find(line), std::string::npos);
  std::string changed = text;
  changed.replace(changed.find(line), line.size(), "expert_tensor: 1, microbatches: 4, schedule: dualpipe}");
  std::ofstream(folder / "dualpipe.yaml") << changed;
  const CommandResult refused = run_dtsim("plan " + (folder / "dualpipe.yaml").string() + " --gpus 16 -q -o " +
                                          (folder / "scenario").string());
  EXPECT_EQ(refused.exit_status, 2);
  EXPECT_NE(without_sanitizer_notices(refused.err)
                .find("error: training.parallelism.schedule: a plan estimates each split's bubble in closed form, and "
                      "DualPipe's two copies of the stages are not among the schedules it estimates\n"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(folder / "scenario"));
  const CommandResult flag = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16 --schedule dualpipe -q -o " + (folder / "flag").string());
  EXPECT_EQ(flag.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(flag.err),
            "dtsim plan: error: --schedule: a plan estimates each split's bubble in closed form, and DualPipe's two "
            "copies of the stages are not among the schedules it estimates\n"
            "  hint: one of gpipe, 1f1b, interleaved_1f1b, zero_bubble\n");
  EXPECT_FALSE(fs::exists(folder / "flag"));
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
// run would refuse, and counted with them (nothing fits: GPT-2 Medium's 16 heads and 24 blocks hold 416 devices at
// most), instead of stopping at an error in a generated file it never wrote.
TEST(PlanCommand, CountsCandidatesAboveTheSchemasBoundsAmongTheDiscards) {
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
  EXPECT_EQ(wide.exit_status, 2);
  // Of the 78 tensor x pipeline degrees (powers of 2 whose product divides 2,048), the 66 that leave a data degree
  // above 1 do not divide a batch of one sequence; the 12 that leave 1 (22 candidates: both orders where both
  // degrees are above 1) split more ways than GPT-2 Medium's 16 heads or into more stages than its blocks (or than
  // a scenario takes), discarded by those keys.
  EXPECT_EQ(without_sanitizer_notices(wide.err),
            scenario.string() +
                ": error: training.parallelism: no split of the model over 2048 devices with a global batch of 1 fits: "
                "88 candidates, every one discarded (66 training.batch, 13 training.parallelism.tensor, 9 "
                "training.parallelism.pipeline)\n"
                "  hint: every candidate that --zero 1, --recomputation selective and --schedule 1f1b leave is "
                "discarded: leave them out, or plan other device counts with --gpus\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

// A device count over which no candidate fits is an error naming the discards and what to change, before anything
// is written: the fixed choices that leave no split to screen (those without which there would be some; all of
// them where none alone would do), --max-memory where it discards every split that passes the checks, or else the
// device count.
TEST(PlanCommand, RefusesACountNoCandidateFitsNamingTheFlagsThatRuleThemOut) {
  const fs::path folder = fresh_output_folder("plan_unfit");
  const fs::path scenario = scenario_path("plan/gpt2-medium-a100-x16.yaml");
  const auto refusal = [&](const std::string& flags) {
    const CommandResult plan =
        run_dtsim("plan " + scenario.string() + " " + flags + " -o " + (folder / "out").string());
    EXPECT_EQ(plan.exit_status, 2) << flags;
    EXPECT_FALSE(fs::exists(folder / "out")) << flags;
    return without_sanitizer_notices(plan.err);
  };
  const std::string at = scenario.string() + ": error: training.parallelism: no split of the model over ";
  const std::string none = at + "16 devices with a global batch of 32 fits: the choices fixed leave no candidate\n";
  EXPECT_EQ(refusal("--gpus 16 --tensor 3"),
            none + "  hint: --tensor 3 rules out every split of 16 devices: change it or leave it out\n");
  // A dense model has no expert degree but 1; the ZeRO stage alone would leave splits.
  EXPECT_EQ(refusal("--gpus 16 --expert 2 --zero 1"),
            none + "  hint: --expert 2 rules out every split of 16 devices: change it or leave it out\n");
  // 3 divides no replica's batch (32 over a data degree that divides 16); neither flag alone leaves a split.
  EXPECT_EQ(refusal("--gpus 16 --tensor 3 --microbatches 3"),
            none + "  hint: --tensor 3 and --microbatches 3 rule out every split of 16 devices: change them or leave "
                   "them out\n");
  EXPECT_EQ(refusal("--gpus 16 --max-memory 1B"),
            at + "16 devices with a global batch of 32 fits: 12168 candidates, every one discarded (7764 --max-memory, "
                 "3036 training.parallelism.zero, 1368 training.parallelism.microbatches)\n"
                 "  hint: --max-memory 1B rules out the 7764 candidates that pass every check: allow more memory, or "
                 "leave it out\n");
  // 65,528 is 8 x 8,191 (a prime): the data degrees that divide the batch leave tensor x pipeline groups of 8,191
  // devices and more, which GPT-2 Medium's 16 heads and 24 blocks cannot hold.
  EXPECT_EQ(refusal("--gpus 65528"),
            at + "65528 devices with a global batch of 32 fits: 15706 candidates, every one discarded (10296 "
                 "training.parallelism.tensor, 5400 training.parallelism.pipeline, 10 training.batch)\n"
                 "  hint: every split of 65528 devices is discarded: plan other device counts with --gpus\n");
  // Where none of several counts fits, the first says why.
  EXPECT_EQ(refusal("--gpus 65528,65520 --top 1").substr(0, at.size() + 5), at + "65528");
}

// Beside a count that fits, a count nothing fits is listed with its discards, and the plan goes on.
TEST(PlanCommand, ACountNothingFitsBesideOneThatFitsIsListedAndThePlanGoesOn) {
  const fs::path folder = fresh_output_folder("plan_unfit_beside");
  const CommandResult plan = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16,65528 --zero 1 --recomputation selective --schedule 1f1b "
                                       "--keep-placement --top 1 -j 2 -o " + (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const std::size_t line = plan.out.find("65528 devices: ");
  ASSERT_NE(line, std::string::npos) << plan.out;
  EXPECT_NE(plan.out.substr(line, plan.out.find('\n', line) - line).find(" 0 fit; simulating the best 0"), std::string::npos)
      << plan.out;
  const auto rows = plan_rows(folder / "plan" / "plan.csv");
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) EXPECT_EQ(row[1], "16");
}

// A split whose data degree does not divide the batch is counted among the candidates, and so listed, by its
// degrees alone. Over 24 devices (three nodes) with the batch of 32, the data degrees 24, 12, 6 and 3 divide
// nothing: t1 with p1, p2, p4, p8; t2 with p1, p2, p4; t4 with p1, p2; t8 with p1.
TEST(PlanCommand, ListsTheSplitsWhoseDataDegreeDoesNotDivideTheBatch) {
  const fs::path folder = fresh_output_folder("plan_undivided");
  const CommandResult plan = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 24 --zero 1 --recomputation selective --schedule 1f1b --keep-placement "
                                       "--top 1 -j 2 -o " + (folder / "plan").string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  EXPECT_NE(plan.out.find("24 devices: 110 candidates, 50 fit, 60 discarded\n"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("\n        10  training.batch\n"), std::string::npos) << plan.out;
  const auto candidates = plan_rows(folder / "plan" / "plan_candidates.csv");
  EXPECT_EQ(candidates.size(), 110U);
  std::vector<std::string> undivided;
  for (const auto& row : candidates) {
    if (row[19] == "training.batch") undivided.push_back(row[1]);
  }
  EXPECT_EQ(undivided, (std::vector<std::string>{"t1 p1 d24", "t1 p2 d12", "t1 p4 d6", "t1 p8 d3", "t2 p1 d12",
                                                 "t2 p2 d6", "t2 p4 d3", "t4 p1 d6", "t4 p2 d3", "t8 p1 d3"}));
  const std::string listed = read_file(folder / "plan" / "plan_candidates.csv");
  EXPECT_NE(listed.find("\n24,t1 p1 d24,1,1,1,,,24,,,,,,,,,,,,training.batch,the data-parallel degree 24 does not "
                        "divide the batch of 32 samples\n"),
            std::string::npos)
      << listed;
}

// A plan into the folder of an earlier plan of other device counts replaces it whole: the counts it does not plan
// go with the rest. A name no plan writes is refused still, and the folder left as it was.
TEST(PlanCommand, ReplacesAnEarlierPlanOfOtherDeviceCounts) {
  const fs::path folder = fresh_output_folder("plan_replanned");
  const fs::path out = folder / "plan";
  const std::string plan = "plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                           " --zero 1 --recomputation selective --schedule 1f1b --keep-placement --top 1 -j 2 -q -o " +
                           out.string();
  const CommandResult both = run_dtsim(plan + " --gpus 8,16");
  ASSERT_EQ(both.exit_status, 0) << both.err;
  ASSERT_TRUE(fs::is_directory(out / "8-devices"));
  const CommandResult sixteen = run_dtsim(plan + " --gpus 16");
  ASSERT_EQ(sixteen.exit_status, 0) << sixteen.err;
  EXPECT_FALSE(fs::exists(out / "8-devices"));
  EXPECT_FALSE(fs::exists(out / "8-devices.yaml"));
  EXPECT_TRUE(fs::is_directory(out / "16-devices"));
  EXPECT_TRUE(fs::exists(out / "16-devices.yaml"));
  const auto rows = plan_rows(out / "plan.csv");
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) EXPECT_EQ(row[1], "16") << row[2];
  std::ofstream(out / "8-devices.txt") << "mine";
  const CommandResult foreign = run_dtsim(plan + " --gpus 8");
  EXPECT_EQ(foreign.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(foreign.err),
            out.string() + ": error: the folder holds '8-devices.txt', which is not part of a plan: a plan writes "
                           "plan.csv, plan_candidates.csv, report.html, and N-devices/ with N-devices.yaml for each "
                           "device count\n"
                           "  hint: give another folder with -o\n");
  EXPECT_EQ(read_file(out / "8-devices.txt"), "mine");
  EXPECT_TRUE(fs::is_directory(out / "16-devices"));
}

// -o naming a symbolic link to nothing (or a folder under one) is refused before anything is simulated: no folder
// can be made there.
TEST(PlanCommand, RefusesAnOutputFolderThatIsALinkToNothing) {
  const fs::path folder = fresh_output_folder("plan_dangling_link");
  const fs::path link = folder / "danglink";
  fs::create_symlink("nonexist_target", link);
  const std::string plan =
      "plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() + " --gpus 16 --top 1 -o ";
  const CommandResult onto = run_dtsim(plan + link.string());
  EXPECT_EQ(onto.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(onto.err),
            link.string() + ": error: the output folder of a plan is a symbolic link to 'nonexist_target', which does "
                            "not exist\n"
                            "  hint: create the folder the link points to, or give another folder with -o\n");
  const CommandResult under = run_dtsim(plan + (link / "sub").string());
  EXPECT_EQ(under.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(under.err),
            link.string() + ": error: the output folder of a plan, " + (link / "sub").string() +
                ", lies under this symbolic link to 'nonexist_target', which does not exist\n"
                "  hint: create the folder the link points to, or give another folder with -o\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_FALSE(fs::exists(folder / "nonexist_target"));
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

// A plan under --confine reads the scenario named on its command line wherever it lies, as `dtsim run` does: the
// scenario it generates includes that one, in the plan and in each point's run. Nothing is left beside the results,
// and each run's summary names the generated scenario where it lies once the plan is done.
TEST(PlanCommand, PlansAScenarioOutsideTheConfinedFolderNamedOnItsCommandLine) {
  const fs::path folder = fresh_output_folder("plan_confined");
  fs::create_directories(folder / "conf");
  const fs::path out = folder / "out";
  const CommandResult plan = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16 --zero 1 --recomputation selective --schedule 1f1b --keep-placement "
                                       "--top 1 -j 2 -q --confine " + (folder / "conf").string() + " -o " + out.string());
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  EXPECT_EQ(without_sanitizer_notices(plan.err), "");
  const std::string generated = fs::weakly_canonical(out / "16-devices.yaml").string();
  ASSERT_TRUE(fs::is_regular_file(generated));
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_NE(entry.path().filename().string().front(), '.') << entry.path() << " is left behind";
  }
  std::size_t runs = 0;
  for (const auto& entry : fs::directory_iterator(out / "16-devices")) {
    if (!fs::is_regular_file(entry.path() / "summary.json")) continue;
    ++runs;
    const auto summary = nlohmann::json::parse(read_file(entry.path() / "summary.json"));
    EXPECT_EQ(summary["origin"]["file"], generated) << entry.path();
  }
  EXPECT_GE(runs, 1U);
}

// An error of a point the plan generates is said at the line of the user's scenario, the point named by its label,
// before anything is written: never at a line of the generated file, which is not there, nor with a value left
// empty. Fixing every choice leaves one candidate, t1 p1 d16 (where a worker failure is not a split's problem), and
// its one point.
TEST(PlanCommand, ErrorsOfAGeneratedPointNameItAtTheUsersLine) {
  const fs::path folder = fresh_output_folder("plan_point_errors");
  const fs::path scenario = folder / "with-failures.yaml";
  std::ofstream(scenario) << read_file(scenario_path("plan/gpt2-medium-a100-x16.yaml"))
                          << "failures:\n  events:\n    - {kind: worker, target: \"3\", at: 5ms, repair_after: 2ms}\n";
  const CommandResult plan = run_dtsim("plan " + scenario.string() + " --gpus 16 --tensor 1 --pipeline 1 "
                                       "--microbatches 1 --zero 1 --recomputation selective --schedule 1f1b "
                                       "--keep-placement --top 1 -q -o " + (folder / "out").string());
  EXPECT_EQ(plan.exit_status, 2);
  // The generated scenario includes the user's by its absolute name.
  const std::string at = fs::absolute(scenario).lexically_normal().string();
  const std::string point = "in sweep point workers=16,count=2,tensor=1,pipeline=1,data=16,microbatches=1,zero=1,"
                            "schedule=1f1b,virtual_stages=1,sequence_parallel=false,recomputation=selective,"
                            "placement=tensor-pipeline-data,global=32";
  EXPECT_EQ(without_sanitizer_notices(plan.err),
            at +
                ":18:18: error: topology.network_model: the analytical network shares the links among a phase's own "
                "flows only: failures, background traffic, link traces and link conditions would go unseen\n"
                "  hint: use network_model: alpha_beta, which times every message (" +
                point + ")\n" + at +
                ":27:1: error: failures: worker failures are not supported yet in timing-only (profile) runs\n"
                "  hint: use a model that trains on data, or fail links only (" +
                point + ")\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

// Counts are whole numbers in plain decimal: 1e3 and abc are said to be no such number, not out of range, and 0x10
// (C's hexadecimal) and 016 (C's octal) are refused rather than read as 16 and 14.
TEST(PlanCommand, RefusesDeviceCountsThatAreNotPlainDecimalNumbers) {
  const fs::path folder = fresh_output_folder("plan_count_forms");
  const std::string plan = "plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() + " --top 1 -q -o " +
                           (folder / "out").string() + " --gpus ";
  for (const std::string count : {"1e3", "abc", "0x10", "016", "+16", "0", "65537"}) {
    const CommandResult refused = run_dtsim(plan + count);
    EXPECT_EQ(refused.exit_status, 2) << count;
    EXPECT_EQ(without_sanitizer_notices(refused.err),
              "--gpus: a device count is a whole number from 1 to 65,536, given in plain decimal digits, got '" + count +
                  "'\nRun with --help for more information.\n");
  }
  const CommandResult tensor = run_dtsim(plan + "16 --tensor 0x2");
  EXPECT_EQ(tensor.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(tensor.err),
            "--tensor: a tensor degree is a whole number from 1 to 65,536, given in plain decimal digits, got '0x2'\n"
            "Run with --help for more information.\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

// A memory cap above what the devices hold would change nothing (each candidate is held to its devices' memory
// already): refused, naming the devices and their memory, before anything is searched or written.
TEST(PlanCommand, RefusesAMemoryCapAboveTheDevicesMemory) {
  const fs::path folder = fresh_output_folder("plan_memory_cap");
  const CommandResult plan = run_dtsim("plan " + scenario_path("plan/gpt2-medium-a100-x16.yaml").string() +
                                       " --gpus 16 --max-memory 1TiB -o " + (folder / "out").string());
  EXPECT_EQ(plan.exit_status, 2);
  EXPECT_EQ(without_sanitizer_notices(plan.err),
            "dtsim plan: error: --max-memory: 1 TiB is more than a device holds: the a100 devices hold 80 GiB each, "
            "which bounds every candidate already\n"
            "  hint: give --max-memory 80GiB or less, or leave it out\n");
  EXPECT_FALSE(fs::exists(folder / "out"));
}

}  // namespace
}  // namespace dtsim::testing
