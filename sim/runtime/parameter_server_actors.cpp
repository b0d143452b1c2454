#include "sim/runtime/parameter_server_actors.hpp"

#include "models/sgd.hpp"
#include "sim/comm/parameter_server_protocol.hpp"

#include <numeric>

namespace dtsim::runtime {
namespace {

constexpr const char* kGroup = "parameter_server";

comm::Buffer to_buffer(const models::Parameters& values) {
  return comm::Buffer(std::vector<float>(values.data(), values.data() + values.size()));
}

}  // namespace

ParameterServerWorker::ParameterServerWorker(TrainingContext context, int rank)
    : context_(std::move(context)), rank_(rank) {}

void ParameterServerWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  metrics::HostActivity& activity = context_.record->hosts[static_cast<std::size_t>(rank_)];
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  S4uTransport transport(kGroup, rank_, workers + shards, activity);
  std::vector<int> servers(static_cast<std::size_t>(shards));
  std::iota(servers.begin(), servers.end(), workers);
  models::BatchStream batches(setup.schedule, rank_);
  models::Parameters parameters = setup.model->initial_parameters();
  models::Parameters gradient;

  if (rank_ == 0) after_iteration(context_, 0, parameters);
  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    compute_gradient(context_, activity, parameters, batches.next(), gradient);
    const comm::Buffer pulled = comm::push_and_pull(transport, servers, to_buffer(gradient));
    parameters = Eigen::Map<const models::Parameters>(pulled.values().data(), static_cast<Eigen::Index>(pulled.size()));
    if (rank_ == 0) after_iteration(context_, iteration, parameters);
  }
}

ParameterServer::ParameterServer(TrainingContext context, int shard) : context_(std::move(context)), shard_(shard) {}

void ParameterServer::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  metrics::HostActivity& activity = context_.record->hosts[static_cast<std::size_t>(workers + shard_)];
  S4uTransport transport(kGroup, workers + shard_, workers + shards, activity);
  const models::Sgd optimizer(context_.scenario->training.optimizer.learning_rate);
  const models::Parameters initial = setup.model->initial_parameters();
  const comm::ChunkBounds range = comm::chunk_bounds(static_cast<std::size_t>(initial.size()), shards, shard_);
  models::Parameters parameters =
      initial.segment(static_cast<Eigen::Index>(range.begin), static_cast<Eigen::Index>(range.end - range.begin));
  std::vector<int> ranks(static_cast<std::size_t>(setup.sync->gradients_per_update(workers)));
  std::iota(ranks.begin(), ranks.end(), 0);

  const auto update = [&](const comm::Buffer& mean) {
    optimizer.apply(parameters, Eigen::Map<const models::Parameters>(mean.values().data(), static_cast<Eigen::Index>(mean.size())));
    // Averaging p gradients (p-1 additions and one scaling per parameter) and the optimizer step.
    const auto count = static_cast<double>(parameters.size());
    charge_compute(activity, count * static_cast<double>(ranks.size()) + models::Sgd::flops(static_cast<std::size_t>(count)));
    return to_buffer(parameters);
  };
  for (std::int64_t round = 1; round <= setup.total_iterations; ++round) comm::serve_round(transport, ranks, update);
}

}  // namespace dtsim::runtime
