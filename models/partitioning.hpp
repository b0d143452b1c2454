#pragma once
// How training samples are split over workers. Each worker trains on a contiguous shard of the training
// set (BatchSchedule::shard); a partitioning reorders the training set so that those shards hold the
// samples it assigns.

#include "models/batch_schedule.hpp"
#include "models/dataset.hpp"
#include "models/partitioning_kind.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dtsim::models {

/// The new order of the training rows (a permutation) that gives each worker of `schedule` its samples.
/// Dirichlet: worker w draws shares q_w ~ Dir(alpha, ..., alpha) over the classes (stream
/// "data/partitioning/dirichlet" of `seed`) and takes round(q_w,c x its shard size) samples of each class c, in
/// class order, while the class has samples left; what is still missing is filled from the classes with the
/// most samples left. Shard sizes stay those of the schedule. Small alpha: one or two classes per worker;
/// large alpha: every worker close to the global mix.
std::vector<std::size_t> partition_order(const Dataset& train, const BatchSchedule& schedule, Partitioning kind,
                                         double alpha, std::uint64_t seed);

/// Reorders `data`'s rows: row i becomes the old row order[i].
void reorder(Dataset& data, const std::vector<std::size_t>& order);

}  // namespace dtsim::models
