#pragma once
// The reference a run that splits its batch must end at: one process training on the global batch.

#include "models/batch_schedule.hpp"
#include "models/optimizer.hpp"
#include "sim/runtime/setup/training_setup.hpp"

#include <vector>

namespace dtsim::testing {

/// One process training on the global batch (every replica's batch of the run's schedule, in replica order,
/// `replicas` of them) with `optimizer`, for the run's iterations.
inline models::Parameters one_process_on_the_global_batch(const runtime::TrainingSetup& setup, int replicas,
                                                          models::Optimizer& optimizer) {
  std::vector<models::BatchStream> streams;
  for (int replica = 0; replica < replicas; ++replica) streams.emplace_back(setup.schedule, replica);
  models::Parameters parameters = setup.model().initial_parameters();
  models::Parameters gradient;
  for (std::int64_t iteration = 0; iteration < setup.total_iterations; ++iteration) {
    std::vector<std::size_t> global_batch;
    for (auto& stream : streams) {
      const auto rows = stream.next();
      global_batch.insert(global_batch.end(), rows.begin(), rows.end());
    }
    setup.model().loss_and_gradient(parameters, setup.data.train, global_batch, gradient);
    optimizer.apply(parameters, gradient);
  }
  return parameters;
}

}  // namespace dtsim::testing
