// Wall-clock cost of the real math behind one worker step: each model's loss and gradient on a batch, in
// GFLOP/s by the model's own FLOP count, beside Eigen's GEMM on the same machine in the same run (the
// issue's target: MLP gradients at >= 50% of that GEMM rate). This bounds how fast dtsim can simulate a
// training run, whatever the simulated hardware.
//   build/release/bench/gradient_bench --benchmark_counters_tabular=true

#include "models/dense_classifier.hpp"
#include "models/gaussian_blobs.hpp"
#include "models/logistic_regression.hpp"
#include "models/low_rank_ratings.hpp"
#include "models/matrix_factorization.hpp"
#include "models/synthetic_classification.hpp"

#include <benchmark/benchmark.h>

#include <numeric>

namespace {

using dtsim::models::Parameters;

/// Runs `model`'s loss and gradient on `batch` rows of `data`, and reports the model's FLOPs per second.
void run_gradient(benchmark::State& state, const dtsim::models::TrainableModel& model, const dtsim::models::Dataset& data,
                  std::size_t batch, const Parameters& parameters) {
  std::vector<std::size_t> rows(batch);
  std::iota(rows.begin(), rows.end(), 0);
  Parameters gradient;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.loss_and_gradient(parameters, data, rows, gradient));
    benchmark::DoNotOptimize(gradient.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
  state.counters["GFLOP/s"] = benchmark::Counter(
      model.training_flops_per_sample() * static_cast<double>(batch) * static_cast<double>(state.iterations()) / 1e9,
      benchmark::Counter::kIsRate);
}

void LogisticRegressionGradient(benchmark::State& state) {
  const auto features = static_cast<std::size_t>(state.range(0));
  const auto batch = static_cast<std::size_t>(state.range(1));
  const auto data = dtsim::models::make_synthetic_classification({batch * 4, features, 0.2, 0.1}, 1);
  const dtsim::models::LogisticRegression model(features);
  run_gradient(state, model, data.train, batch, Parameters::Constant(static_cast<Eigen::Index>(features + 1), 0.01F));
}
BENCHMARK(LogisticRegressionGradient)->Args({64, 32})->Args({1024, 32})->Args({1024, 256});

/// An MLP of one hidden layer of `width` relu units over `features` inputs and 10 classes (0 hidden: softmax
/// regression).
void DenseClassifierGradient(benchmark::State& state) {
  const auto features = static_cast<std::size_t>(state.range(0));
  const auto width = static_cast<std::size_t>(state.range(1));
  const auto batch = static_cast<std::size_t>(state.range(2));
  const auto data = dtsim::models::make_gaussian_blobs({.samples = batch * 2, .features = features, .classes = 10}, 1);
  const std::vector<std::size_t> hidden = width == 0 ? std::vector<std::size_t>{} : std::vector<std::size_t>{width};
  const dtsim::models::DenseClassifier model(features, hidden, dtsim::models::Activation::Relu, 10, 1);
  run_gradient(state, model, data.train, batch, model.initial_parameters());
}
BENCHMARK(DenseClassifierGradient)->Args({64, 0, 256})->Args({64, 64, 256})->Args({256, 256, 256})->Args({784, 512, 128});

void MatrixFactorizationGradient(benchmark::State& state) {
  const auto dimensions = static_cast<std::size_t>(state.range(0));
  const auto batch = static_cast<std::size_t>(state.range(1));
  const auto data = dtsim::models::make_low_rank_ratings({.samples = batch * 2, .users = 1000, .items = 1000}, 1);
  const dtsim::models::MatrixFactorization model(1000, 1000, dimensions, 1);
  run_gradient(state, model, data.train, batch, model.initial_parameters());
}
BENCHMARK(MatrixFactorizationGradient)->Args({16, 256})->Args({64, 256});

/// Eigen's float GEMM, m x k times k x n, as the MLP's layers use it: 2 m n k FLOPs.
void EigenGemm(benchmark::State& state) {
  const auto m = static_cast<Eigen::Index>(state.range(0));
  const auto k = static_cast<Eigen::Index>(state.range(1));
  const auto n = static_cast<Eigen::Index>(state.range(2));
  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(m, k);
  const Eigen::MatrixXf b = Eigen::MatrixXf::Random(k, n);
  Eigen::MatrixXf c(m, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(m * n * k) * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(EigenGemm)->Args({256, 64, 64})->Args({256, 256, 256})->Args({128, 784, 512});

}  // namespace

BENCHMARK_MAIN();
