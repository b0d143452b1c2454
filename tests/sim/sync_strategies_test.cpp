// Synchronization strategies on a parameter server, against references computed without the simulator:
// SSP with bound 0 is BSP bit for bit, async with one worker is sequential SGD, and SSP never lets a worker
// compute on parameters more stale than its bound, whatever the workers' speeds.

#include "models/sgd.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/comm/parameter_server_protocol.hpp"
#include "sim/core/rng.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/sim/simulated_run.hpp"
#include "tests/unit/comm/thread_transport.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

namespace dtsim {
namespace {

std::string strategies_scenario(int workers, const std::string& sync, const std::string& extra = "") {
  return fmt::format(R"(name: strategies
seed: 17
cluster:
  workers: {}
  device: {{peak_flops: "2GFLOPS", efficiency: 0.5}}
topology:
  kind: parameter_server
  link: {{bandwidth: "10Gbps", latency: "5us"}}
model: {{kind: logistic_regression}}
data: {{kind: synthetic_classification, samples: 4000, features: 32, label_noise: 0.3}}
training:
  batch: {{per_worker: 16}}
  optimizer: {{learning_rate: 0.4}}
  sync: {}
  architecture: {{kind: parameter_server{}}}
  stop: {{epochs: 2}}
)",
                     workers, sync, extra);
}

using testing::SimulatedRun;

SimulatedRun simulate_strategies(const std::string& text, bool measure_updates = false) {
  return testing::simulate_text(text, "strategies.yaml", measure_updates);
}

/// What a BSP parameter server computes, without the simulator: every iteration, each worker's gradient on
/// the current parameters, their mean in worker order, one SGD step.
models::Parameters bsp_reference(const SimulatedRun& run) {
  std::vector<models::BatchStream> streams;
  for (int rank = 0; rank < run.scenario.cluster.workers; ++rank) streams.emplace_back(run.setup.schedule, rank);
  const models::Sgd optimizer(run.scenario.training.optimizer.learning_rate);
  models::Parameters parameters = run.setup.model().initial_parameters();
  models::Parameters gradient;
  for (std::int64_t iteration = 0; iteration < run.setup.total_iterations; ++iteration) {
    std::vector<comm::Buffer> gradients;
    for (auto& stream : streams) {
      run.setup.model().loss_and_gradient(parameters, run.setup.data.train, stream.next(), gradient);
      gradients.emplace_back(std::vector<float>(gradient.data(), gradient.data() + gradient.size()));
    }
    const comm::Buffer mean = comm::mean_of(gradients);
    optimizer.apply(parameters, Eigen::Map<const models::Parameters>(mean.values().data(), parameters.size()));
  }
  return parameters;
}

std::vector<float> as_vector(const models::Parameters& parameters) {
  return {parameters.data(), parameters.data() + parameters.size()};
}

std::string random_speeds(int seed) {
  core::RandomEngine speeds = core::random_stream(static_cast<std::uint64_t>(seed), "test/ssp-speeds");
  std::string rules = "stragglers:\n";
  for (int worker = 0; worker < 8; ++worker) {
    rules += fmt::format("  - {{workers: [{}], slowdown: {:.3f}}}\n", worker, 1.0 + 3.0 * core::uniform01(speeds));
  }
  return rules;
}

class BitwiseBsp : public ::testing::TestWithParam<std::string> {};

// Run separately (one engine per process), BSP and SSP(0) each equal the same reference exactly, so they
// equal each other bit for bit; with a straggler, so that SSP(0) really has to hold workers back.
TEST_P(BitwiseBsp, EqualsTheBspReferenceExactly) {
  const SimulatedRun run = simulate_strategies(strategies_scenario(4, GetParam(), ", shards: 2") +
                                               "stragglers: [{workers: [1], slowdown: 3}]\n");
  EXPECT_EQ(run.observed.final_parameters, as_vector(bsp_reference(run)));
  EXPECT_EQ(run.record.updates_applied, run.setup.total_iterations);
  EXPECT_EQ(run.record.staleness, (std::map<std::int64_t, std::int64_t>{{0, 4 * run.setup.total_iterations}}));
}

INSTANTIATE_TEST_SUITE_P(Strategies, BitwiseBsp, ::testing::Values("{strategy: bsp}", "{strategy: ssp, staleness: 0}"),
                         [](const auto& param_info) { return param_info.index == 0 ? "bsp" : "ssp_0"; });

std::string on_arrival_name(std::size_t index) {
  const std::vector<std::string> names{"async", "async_locked", "staleness_aware", "approximate_every_step"};
  return names.at(index);
}

class OnArrival : public ::testing::TestWithParam<std::string> {};

TEST_P(OnArrival, WithOneWorkerIsSequentialSgd) {
  const SimulatedRun run = simulate_strategies(strategies_scenario(1, GetParam()));
  EXPECT_EQ(run.observed.final_parameters, as_vector(bsp_reference(run)));  // one worker: plain SGD
  EXPECT_EQ(run.record.updates_applied, run.setup.total_iterations);
  EXPECT_EQ(run.record.staleness, (std::map<std::int64_t, std::int64_t>{{0, run.setup.total_iterations}}));
}

INSTANTIATE_TEST_SUITE_P(Strategies, OnArrival,
                         ::testing::Values("{strategy: async}", "{strategy: async, lock: true}",
                                           "{strategy: staleness_aware}", "{strategy: approximate, threshold: 1e-12}"),
                         [](const auto& param_info) { return on_arrival_name(param_info.index); });

// Approximate synchronous, 20 seeds, each with its own random speed for each of 8 workers: every push
// either made a significant update (above the threshold), or had held max_delay steps, or was the final
// one; and both reasons occur.
class ApproximateRule : public ::testing::TestWithParam<int> {};

TEST_P(ApproximateRule, NeverPushesAnInsignificantUpdateBeforeItsMaximumDelay) {
  const SimulatedRun run = simulate_strategies(
      strategies_scenario(8, "{strategy: approximate, threshold: 0.08, max_delay: 4}") + random_speeds(GetParam()));
  ASSERT_FALSE(run.observed.pushes.empty());
  int by_threshold = 0;
  int by_delay = 0;
  std::int64_t steps = 0;
  for (const auto& push : run.observed.pushes) {
    EXPECT_TRUE(push.relative > 0.08 || push.delay >= 4 || push.last)
        << "worker " << push.worker << " pushed " << push.relative << " after " << push.delay << " steps";
    by_threshold += push.relative > 0.08 && push.delay < 4 ? 1 : 0;
    by_delay += push.relative <= 0.08 && push.delay >= 4 ? 1 : 0;
    steps += push.delay;
  }
  EXPECT_GT(by_threshold, 0);
  EXPECT_GT(by_delay, 0);
  EXPECT_EQ(steps, 8 * run.setup.total_iterations);  // every step's gradient reached the server once
  EXPECT_LT(static_cast<std::int64_t>(run.observed.pushes.size()), 8 * run.setup.total_iterations);
  EXPECT_EQ(run.record.updates_applied, static_cast<std::int64_t>(run.observed.pushes.size()));
}

INSTANTIATE_TEST_SUITE_P(Seeds, ApproximateRule, ::testing::Range(1, 21));

// 8 workers of random speeds: every update the server applied took the optimizer's step at alpha0 / tau (tau
// its staleness, 1 for 0 and 1): its parameter change over the change the same optimizer, in the same state,
// makes at alpha0. Staleness above 1 occurs, so the division is exercised. Under momentum and Adam the factor
// must survive the optimizer (scaling the gradient instead would be undone by Adam's normalisation).
class StalenessAwareRate : public ::testing::TestWithParam<std::string> {};

TEST_P(StalenessAwareRate, EachAppliedUpdateStepsAtTheLearningRateOverItsStaleness) {
  std::string text = strategies_scenario(8, "{strategy: staleness_aware}") + random_speeds(3);
  const std::string plain = "optimizer: {learning_rate: 0.4}";
  text.replace(text.find(plain), plain.size(), "optimizer: {kind: " + GetParam() + ", learning_rate: 0.05}");
  const SimulatedRun run = simulate_strategies(text, true);
  ASSERT_EQ(static_cast<std::int64_t>(run.observed.applied.size()), 8 * run.setup.total_iterations);
  std::int64_t stale = 0;
  for (const auto& update : run.observed.applied) {
    const double expected = update.staleness <= 1 ? 1.0 : 1.0 / static_cast<double>(update.staleness);
    EXPECT_NEAR(update.rate_factor, expected, 1e-3 * expected) << "staleness " << update.staleness;
    stale += update.staleness > 1 ? 1 : 0;
  }
  EXPECT_GT(stale, 0);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, StalenessAwareRate, ::testing::Values("sgd", "momentum", "adam"));

TEST(Async, EachAppliedUpdateUsesTheFullLearningRate) {
  const SimulatedRun run = simulate_strategies(strategies_scenario(8, "{strategy: async}") + random_speeds(3), true);
  ASSERT_FALSE(run.observed.applied.empty());
  for (const auto& update : run.observed.applied) EXPECT_NEAR(update.rate_factor, 1.0, 1e-3);
}

// Worker 0, four times slower than the others, evaluates: by its own count it has passed a fraction of the data
// the others have already seen. An evaluation's epoch counts every worker's samples (steps over 8 workers'
// epochs), so that it is ahead of worker 0's own iterations while the others run ahead, and ends where they all
// end; BSP's workers share one count, which stays the epoch.
TEST(Async, AnEvaluationsEpochCountsEveryWorkersSamples) {
  const SimulatedRun run = simulate_strategies(strategies_scenario(8, "{strategy: async}") +
                                               "stragglers:\n  - {workers: [0], slowdown: 4}\n");
  const auto per_epoch = static_cast<double>(run.setup.schedule.iterations_per_epoch());
  int ahead = 0;
  for (const metrics::EvaluationRow& row : run.record.evaluations) {
    const double own = static_cast<double>(row.iteration) / per_epoch;
    EXPECT_GE(row.epoch, own) << "iteration " << row.iteration;
    EXPECT_LE(row.epoch, static_cast<double>(run.setup.total_iterations) / per_epoch) << "iteration " << row.iteration;
    // Every worker's steps so far, over the 8 workers' epochs: a whole number of steps.
    const double steps = row.epoch * 8.0 * per_epoch;
    EXPECT_NEAR(steps, std::round(steps), 1e-6) << "iteration " << row.iteration;
    if (row.epoch > own + 1e-12) ++ahead;
  }
  EXPECT_GT(ahead, 0) << "the faster workers' samples count";
  ASSERT_FALSE(run.record.evaluations.empty());
  EXPECT_DOUBLE_EQ(run.record.evaluations.back().epoch, static_cast<double>(run.setup.total_iterations) / per_epoch);
}

// In lock step every worker has seen the evaluator's samples: the epoch is its iterations over an epoch's.
TEST(Bsp, AnEvaluationsEpochIsItsIterationsOverAnEpochs) {
  const SimulatedRun bsp = simulate_strategies(strategies_scenario(8, "{strategy: bsp}") +
                                               "stragglers:\n  - {workers: [0], slowdown: 4}\n");
  const auto bsp_per_epoch = static_cast<double>(bsp.setup.schedule.iterations_per_epoch());
  for (const metrics::EvaluationRow& row : bsp.record.evaluations) {
    EXPECT_EQ(row.epoch, static_cast<double>(row.iteration) / bsp_per_epoch) << "iteration " << row.iteration;
  }
}

// Gathering 2 gradients per update, one worker: its second gradient of each pair is computed on the same
// parameters as the first (the update waits for the pair), and the update is their mean.
TEST(StalenessAware, GathersAccumulateGradientsIntoOneUpdate) {
  const SimulatedRun run = simulate_strategies(strategies_scenario(1, "{strategy: staleness_aware, accumulate: 2}"));
  ASSERT_EQ(run.setup.total_iterations % 2, 0);
  models::BatchStream stream(run.setup.schedule, 0);
  const models::Sgd optimizer(run.scenario.training.optimizer.learning_rate);
  models::Parameters parameters = run.setup.model().initial_parameters();
  models::Parameters gradient;
  for (std::int64_t update = 0; update < run.setup.total_iterations / 2; ++update) {
    std::vector<float> sum(static_cast<std::size_t>(parameters.size()), 0.0F);
    for (int k = 0; k < 2; ++k) {
      run.setup.model().loss_and_gradient(parameters, run.setup.data.train, stream.next(), gradient);
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += 1.0F * gradient[static_cast<Eigen::Index>(i)];
    }
    for (float& value : sum) value *= 0.5F;
    optimizer.apply(parameters, Eigen::Map<const models::Parameters>(sum.data(), parameters.size()));
  }
  EXPECT_EQ(run.observed.final_parameters, as_vector(parameters));
  EXPECT_EQ(run.record.updates_applied, run.setup.total_iterations / 2);
}

std::string allreduce_text(const std::string& sync) {
  std::string text = strategies_scenario(4, sync);
  const std::string ps = "architecture: {kind: parameter_server}";
  text.replace(text.find(ps), ps.size(), "architecture: {kind: allreduce}");
  return text;
}

/// BSP by model averaging, without the simulator: every worker takes an SGD step from the same parameters,
/// and the parameters become the mean of the workers' (summed in worker order).
models::Parameters model_averaging_reference(const SimulatedRun& run) {
  const int workers = run.scenario.cluster.workers;
  std::vector<models::BatchStream> streams;
  for (int rank = 0; rank < workers; ++rank) streams.emplace_back(run.setup.schedule, rank);
  const models::Sgd optimizer(run.scenario.training.optimizer.learning_rate);
  models::Parameters parameters = run.setup.model().initial_parameters();
  models::Parameters gradient;
  for (std::int64_t iteration = 0; iteration < run.setup.total_iterations; ++iteration) {
    models::Parameters sum = models::Parameters::Zero(parameters.size());
    for (auto& stream : streams) {
      models::Parameters local = parameters;
      run.setup.model().loss_and_gradient(local, run.setup.data.train, stream.next(), gradient);
      optimizer.apply(local, gradient);
      sum += local;
    }
    parameters = sum / static_cast<float>(workers);
  }
  return parameters;
}

// Local SGD with one local step is BSP by model averaging (up to the order of the allreduce's additions).
TEST(LocalSgd, WithOneLocalStepIsModelAveraging) {
  const SimulatedRun run = simulate_strategies(allreduce_text("{strategy: local_sgd, local_steps: 1}"));
  const models::Parameters reference = model_averaging_reference(run);
  const Eigen::Map<const models::Parameters> simulated(run.observed.final_parameters.data(), reference.size());
  EXPECT_LE((simulated - reference).norm(), 1e-6 * reference.norm());
  EXPECT_GT(reference.norm(), 0.5);
}

// With H local steps the models are averaged after every H-th step (and the last), so the workers send
// about 1/H of what gradient averaging sends.
TEST(LocalSgd, AveragesEveryHStepsAndSendsAnHthOfTheBytes) {
  const SimulatedRun run = simulate_strategies(allreduce_text("{strategy: local_sgd, local_steps: 4}"));
  const std::int64_t averagings = (run.setup.total_iterations + 3) / 4;
  const double per_averaging = run.record.hosts[0].bytes_sent / static_cast<double>(averagings);
  // Ring allreduce of 33 floats on 4 ranks: 2 x 3 messages of 8 or 9 floats.
  EXPECT_GE(per_averaging, 2 * 3 * 8 * 4.0);
  EXPECT_LE(per_averaging, 2 * 3 * 9 * 4.0);
}

std::string gossip_text(const std::string& topology, const std::string& sync) {
  std::string text = allreduce_text(sync);
  const std::string star = "kind: parameter_server\n";
  text.replace(text.find(star), star.size(), "kind: " + topology + "\n");
  return text;
}

// On a complete graph, averaging with every neighbour is averaging all models: BSP by model averaging, bit
// for bit (both sum in worker order from zero).
TEST(Gossip, WithAllNeighboursOnACompleteGraphIsModelAveraging) {
  const SimulatedRun run = simulate_strategies(gossip_text("mesh", "{strategy: gossip, peers: all}"));
  EXPECT_EQ(run.observed.final_parameters, as_vector(model_averaging_reference(run)));
}

// With one random neighbour per round on a ring the models spread slowly: worker 0 does not hold the
// model-averaging result, yet training makes progress.
TEST(Gossip, WithRandomPeersOnARingDriftsButLearns) {
  const SimulatedRun run = simulate_strategies(gossip_text("ring", "{strategy: gossip, peers: random}"));
  EXPECT_NE(run.observed.final_parameters, as_vector(model_averaging_reference(run)));
  EXPECT_LT(run.record.evaluations.back().val_loss, 0.9 * run.record.evaluations.front().val_loss);
}

/// BSP gradient averaging by allreduce, without the simulator: every iteration each worker's gradient on
/// the same parameters, summed by the scenario's own allreduce algorithm on threads (so in its order of
/// additions), divided by p, one SGD step.
models::Parameters allreduce_reference(const SimulatedRun& run) {
  const int workers = run.scenario.cluster.workers;
  std::vector<models::BatchStream> streams;
  for (int rank = 0; rank < workers; ++rank) streams.emplace_back(run.setup.schedule, rank);
  const models::Sgd optimizer(run.scenario.training.optimizer.learning_rate);
  models::Parameters parameters = run.setup.model().initial_parameters();
  const std::span<const int> machines = run.setup.graph.worker_machines();
  for (std::int64_t iteration = 0; iteration < run.setup.total_iterations; ++iteration) {
    std::vector<models::Parameters> gradients(static_cast<std::size_t>(workers));
    for (int rank = 0; rank < workers; ++rank) {
      run.setup.model().loss_and_gradient(parameters, run.setup.data.train,
                                         streams[static_cast<std::size_t>(rank)].next(),
                                         gradients[static_cast<std::size_t>(rank)]);
    }
    comm::testing::ThreadNetwork network(workers, std::vector<int>(machines.begin(), machines.end()));
    comm::testing::run_ranks(network, [&](comm::Transport& transport) {
      models::Parameters& mine = gradients[static_cast<std::size_t>(transport.rank())];
      run.setup.collectives.allreduce().run(transport,
                               comm::Block(std::span<float>(mine.data(), static_cast<std::size_t>(mine.size()))));
    });
    models::Parameters mean = gradients.front();
    mean /= static_cast<float>(workers);
    optimizer.apply(parameters, mean);
  }
  return parameters;
}

class BitwiseBspOnAllreduce : public ::testing::TestWithParam<std::string> {};

// On an allreduce, SSP(0) runs its allreduces on a separate actor per worker; it still waits for every
// update before the next gradient, so it ends bit for bit where BSP does (each equals the same reference).
TEST_P(BitwiseBspOnAllreduce, EqualsTheAllreduceReferenceExactly) {
  const SimulatedRun run =
      simulate_strategies(allreduce_text(GetParam()) + "stragglers: [{workers: [1], slowdown: 3}]\n");
  EXPECT_EQ(run.observed.final_parameters, as_vector(allreduce_reference(run)));
  EXPECT_EQ(run.record.updates_applied, run.setup.total_iterations);
  EXPECT_EQ(run.record.staleness, (std::map<std::int64_t, std::int64_t>{{0, 4 * run.setup.total_iterations}}));
}

INSTANTIATE_TEST_SUITE_P(Strategies, BitwiseBspOnAllreduce,
                         ::testing::Values("{strategy: bsp}", "{strategy: ssp, staleness: 0}"),
                         [](const auto& param_info) { return param_info.index == 0 ? "bsp" : "ssp_0"; });

void expect_bounded_staleness(const SimulatedRun& run, std::int64_t bound) {
  ASSERT_FALSE(run.record.staleness.empty());
  EXPECT_LE(run.record.staleness.rbegin()->first, bound);
  EXPECT_GT(run.record.staleness.rbegin()->first, 0) << "no worker ever ran ahead";
  std::int64_t gradients = 0;
  for (const auto& [staleness, count] : run.record.staleness) gradients += count;
  EXPECT_EQ(gradients, 8 * run.setup.total_iterations);
}

// 20 seeds, each with its own random speed for each of 8 workers (slowdowns uniform in [1, 4]): no
// gradient is ever computed on parameters more than 2 clocks stale, and the bound is really used.
// adaptive_ssp within [0, 2] likewise never goes beyond its highest bound.
class SspBound : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SspBound, NoGradientIsMoreStaleThanTheBound) {
  const auto [strategy, seed] = GetParam();
  expect_bounded_staleness(simulate_strategies(strategies_scenario(8, strategy) + random_speeds(seed)), 2);
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, SspBound,
    ::testing::Combine(::testing::Values("{strategy: ssp, staleness: 2}",
                                         "{strategy: adaptive_ssp, staleness_min: 0, staleness_max: 2}"),
                       ::testing::Range(1, 21)),
    [](const auto& param_info) {
      return std::string(std::get<0>(param_info.param).find("adaptive") != std::string::npos ? "adaptive" : "ssp") +
             "_seed" + std::to_string(std::get<1>(param_info.param));
    });

// The same on an allreduce: each worker records the staleness of the parameters of every gradient it
// computes, whatever the workers' speeds.
class SspBoundOnAllreduce : public ::testing::TestWithParam<int> {};

TEST_P(SspBoundOnAllreduce, NoGradientIsMoreStaleThanTheBound) {
  std::string text = allreduce_text("{strategy: ssp, staleness: 2}");
  const std::string four = "workers: 4";
  text.replace(text.find(four), four.size(), "workers: 8");
  expect_bounded_staleness(simulate_strategies(text + random_speeds(GetParam())), 2);
}

INSTANTIATE_TEST_SUITE_P(Seeds, SspBoundOnAllreduce, ::testing::Range(1, 21));

}  // namespace
}  // namespace dtsim
