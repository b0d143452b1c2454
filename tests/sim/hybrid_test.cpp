// The hybrid architecture against references computed without the simulator: the dense part averaged by
// the scenario's allreduce algorithm (run on threads), the sparse rows summed in worker order over the
// workers that touched them, times 1/p; and, up to the order of additions, plain gradient averaging.

#include "models/sgd.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/sim/simulated_run.hpp"
#include "tests/unit/comm/thread_transport.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace dtsim {
namespace {

std::string hybrid_scenario(const std::string& architecture) {
  return fmt::format(R"(name: hybrid
seed: 23
cluster:
  workers: 4
  device: {{peak_flops: "2GFLOPS", efficiency: 0.5}}
topology:
  kind: parameter_server
  link: {{bandwidth: "10Gbps", latency: "5us"}}
model: {{kind: matrix_factorization, dimensions: 4}}
data: {{kind: low_rank_ratings, samples: 4000, users: 200, items: 150, rank: 2}}
training:
  batch: {{per_worker: 16}}
  optimizer: {{learning_rate: 1.0}}
  architecture: {}
  stop: {{epochs: 2}}
)",
                     architecture);
}

using testing::SimulatedRun;

SimulatedRun simulate_hybrid(const std::string& text) { return testing::simulate_text(text, "hybrid.yaml"); }

struct References {
  models::Parameters hybrid;     ///< the hybrid's own arithmetic
  models::Parameters averaging;  ///< plain mean of the full gradients
};

References references(const SimulatedRun& run) {
  const int workers = run.scenario.cluster.workers;
  const models::TrainableModel& model = run.setup.model();
  const models::SparseLayout layout = *model.sparse_layout();
  const auto dense = static_cast<Eigen::Index>(layout.dense);
  const auto width = static_cast<Eigen::Index>(layout.row_width);
  std::vector<models::BatchStream> streams;
  for (int rank = 0; rank < workers; ++rank) streams.emplace_back(run.setup.schedule, rank);
  const models::Sgd optimizer(run.scenario.training.optimizer.learning_rate);
  References out{model.initial_parameters(), model.initial_parameters()};
  for (std::int64_t iteration = 0; iteration < run.setup.total_iterations; ++iteration) {
    std::vector<models::Parameters> gradients(static_cast<std::size_t>(workers));
    std::vector<models::Parameters> plain(static_cast<std::size_t>(workers));
    std::vector<std::vector<std::size_t>> touched(static_cast<std::size_t>(workers));
    for (int rank = 0; rank < workers; ++rank) {
      const auto w = static_cast<std::size_t>(rank);
      const auto rows = streams[w].next();
      model.loss_and_gradient(out.hybrid, run.setup.data.train, rows, gradients[w]);
      model.loss_and_gradient(out.averaging, run.setup.data.train, rows, plain[w]);
      model.touched_rows(run.setup.data.train, rows, touched[w]);
    }
    // Plain averaging.
    models::Parameters mean = models::Parameters::Zero(out.averaging.size());
    for (const auto& gradient : plain) mean += gradient;
    mean /= static_cast<float>(workers);
    optimizer.apply(out.averaging, mean);
    // Dense part: the allreduce algorithm on threads, divided by p.
    std::vector<models::Parameters> heads;
    for (const auto& gradient : gradients) heads.emplace_back(gradient.head(dense));
    comm::testing::ThreadNetwork network(workers);
    comm::testing::run_ranks(network, [&](comm::Transport& transport) {
      models::Parameters& mine = heads[static_cast<std::size_t>(transport.rank())];
      run.setup.collectives.allreduce().run(transport, comm::Block(std::span<float>(mine.data(), static_cast<std::size_t>(dense))));
    });
    models::Parameters head = out.hybrid.head(dense);
    heads.front() /= static_cast<float>(workers);
    optimizer.apply(head, heads.front());
    out.hybrid.head(dense) = head;
    // Sparse rows: summed in worker order over the workers that touched them, times 1/p.
    const float scale = 1.0F / static_cast<float>(workers);
    for (std::size_t row = 0; row < layout.rows; ++row) {
      const Eigen::Index at = dense + static_cast<Eigen::Index>(row) * width;
      std::optional<models::Parameters> sum;
      for (int rank = 0; rank < workers; ++rank) {
        const auto w = static_cast<std::size_t>(rank);
        if (!std::binary_search(touched[w].begin(), touched[w].end(), row)) continue;
        if (sum) {
          *sum += gradients[w].segment(at, width);
        } else {
          sum = gradients[w].segment(at, width);
        }
      }
      if (!sum) continue;
      *sum *= scale;
      models::Parameters values = out.hybrid.segment(at, width);
      optimizer.apply(values, *sum);
      out.hybrid.segment(at, width) = values;
    }
  }
  return out;
}

TEST(Hybrid, EqualsItsReferenceExactlyAndGradientAveragingClosely) {
  const SimulatedRun run = simulate_hybrid(hybrid_scenario("{kind: hybrid, shards: 2}"));
  const References reference = references(run);
  ASSERT_EQ(run.observed.final_parameters.size(), static_cast<std::size_t>(reference.hybrid.size()));
  const Eigen::Map<const models::Parameters> simulated(run.observed.final_parameters.data(), reference.hybrid.size());
  EXPECT_TRUE(simulated == reference.hybrid)
      << "largest difference " << (simulated - reference.hybrid).cwiseAbs().maxCoeff();
  EXPECT_LE((simulated - reference.averaging).norm(), 1e-5 * reference.averaging.norm());
  EXPECT_EQ(run.record.updates_applied, run.setup.total_iterations);
  // It learned: the validation loss fell by more than half.
  EXPECT_LT(run.record.evaluations.back().val_loss, 0.5 * run.record.evaluations.front().val_loss);
}

// Workers send the rows their batches touch, not the whole table: here under a fifth of what a ring
// allreduce of every parameter sends, 2 (p - 1) / p x parameters x 4 bytes per iteration.
TEST(Hybrid, WorkersSendOnlyTheRowsTheirBatchesTouch) {
  const SimulatedRun run = simulate_hybrid(hybrid_scenario("{kind: hybrid, shards: 2}"));
  const double allreduce_bytes = 2.0 * 3.0 / 4.0 * static_cast<double>(run.setup.model().parameter_count()) * 4.0 *
                                 static_cast<double>(run.setup.total_iterations);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_LT(run.record.hosts[static_cast<std::size_t>(rank)].bytes_sent, 0.2 * allreduce_bytes) << "worker " << rank;
    EXPECT_GT(run.record.hosts[static_cast<std::size_t>(rank)].bytes_sent, 0.0);
  }
  // Both servers answered: each holds a range of the rows.
  EXPECT_GT(run.record.hosts[4].bytes_sent, 0.0);
  EXPECT_GT(run.record.hosts[5].bytes_sent, 0.0);
}

// One worker 4 times slower: the others wait for it at the dense allreduce and the servers' barrier, and
// that time is waiting, not communication: each fast worker waits at least most of the straggler's extra
// compute time, and moves its messages in no longer than the straggler does, give or take the sharing of
// the servers' links.
TEST(Hybrid, AStragglersExtraComputeIsWaitingForTheOthers) {
  const SimulatedRun run =
      simulate_hybrid(hybrid_scenario("{kind: hybrid, shards: 2}") + "stragglers: [{workers: [2], slowdown: 4}]\n");
  const metrics::HostActivity& slow = run.record.hosts[2];
  for (const int w : {0, 1, 3}) {
    const metrics::HostActivity& fast = run.record.hosts[static_cast<std::size_t>(w)];
    const double extra = slow.compute_s - fast.compute_s;
    ASSERT_GT(extra, 0.0);
    EXPECT_GT(fast.wait_s, 0.9 * extra) << fast.name;
    EXPECT_LT(fast.communication_s, 1.5 * slow.communication_s) << fast.name;
  }
}

}  // namespace
}  // namespace dtsim
