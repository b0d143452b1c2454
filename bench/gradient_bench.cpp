// Wall-clock cost of the real math behind one worker step: logistic-regression loss and gradient on a
// batch. This bounds how fast dtsim can simulate a training run, whatever the simulated hardware.

#include "models/logistic_regression.hpp"
#include "models/synthetic_classification.hpp"

#include <benchmark/benchmark.h>

#include <numeric>

namespace {

void LogisticRegressionGradient(benchmark::State& state) {
  const auto features = static_cast<std::size_t>(state.range(0));
  const auto batch = static_cast<std::size_t>(state.range(1));
  const auto data = dtsim::models::make_synthetic_classification({batch * 4, features, 0.2, 0.1}, 1);
  const dtsim::models::LogisticRegression model(features);
  std::vector<std::size_t> rows(batch);
  std::iota(rows.begin(), rows.end(), 0);
  const dtsim::models::Parameters parameters = dtsim::models::Parameters::Constant(
      static_cast<Eigen::Index>(features + 1), 0.01F);
  dtsim::models::Parameters gradient;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.loss_and_gradient(parameters, data.train, rows, gradient));
    benchmark::DoNotOptimize(gradient.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
}
BENCHMARK(LogisticRegressionGradient)->Args({64, 32})->Args({1024, 32})->Args({1024, 256});

}  // namespace

BENCHMARK_MAIN();
