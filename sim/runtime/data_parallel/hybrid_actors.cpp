#include "sim/runtime/data_parallel/hybrid_actors.hpp"

#include "sim/runtime/network/s4u_transport.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace dtsim::runtime {
namespace {

constexpr const char* kGroup = "hybrid";

/// What a worker sends a shard each clock: [n, n row ids, n x width gradient values, m, m row ids to pull].
/// Row ids travel as floats, exact below 2^24 (the resolver refuses larger tables).
struct RowMessage {
  std::vector<std::size_t> pushed;
  std::vector<float> values;
  std::vector<std::size_t> pulled;
};

comm::Buffer encode(const RowMessage& message) {
  std::vector<float> out;
  out.reserve(2 + message.pushed.size() + message.values.size() + message.pulled.size());
  out.push_back(static_cast<float>(message.pushed.size()));
  for (const std::size_t row : message.pushed) out.push_back(static_cast<float>(row));
  out.insert(out.end(), message.values.begin(), message.values.end());
  out.push_back(static_cast<float>(message.pulled.size()));
  for (const std::size_t row : message.pulled) out.push_back(static_cast<float>(row));
  return comm::Buffer(std::move(out));
}

RowMessage decode(const comm::Buffer& buffer, std::size_t width) {
  const std::span<const float> in = buffer.values();
  RowMessage out;
  std::size_t at = 0;
  const auto take_ids = [&](std::vector<std::size_t>& ids) {
    if (at >= in.size()) throw std::logic_error("hybrid: truncated row message");
    const auto count = static_cast<std::size_t>(in[at++]);
    if (at + count > in.size()) throw std::logic_error("hybrid: truncated row message");
    for (std::size_t i = 0; i < count; ++i) ids.push_back(static_cast<std::size_t>(in[at++]));
  };
  take_ids(out.pushed);
  const std::size_t values = out.pushed.size() * width;
  if (at + values > in.size()) throw std::logic_error("hybrid: truncated row message");
  out.values.assign(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + values));
  at += values;
  take_ids(out.pulled);
  return out;
}

/// The rows of `shard`: a contiguous range, as comm::chunk_bounds splits them.
comm::ChunkBounds shard_rows(const models::SparseLayout& layout, int shards, int shard) {
  return comm::chunk_bounds(layout.rows, shards, shard);
}

Eigen::Index row_offset(const models::SparseLayout& layout, std::size_t row) {
  return static_cast<Eigen::Index>(layout.dense + row * layout.row_width);
}

/// To each shard: the gradients of the touched rows it holds, and the rows of the next batch to send back.
std::vector<comm::Buffer> row_messages(const models::SparseLayout& layout, int shards, const std::vector<std::size_t>& touched,
                                       const std::vector<std::size_t>& next_touched, const models::Parameters& gradient) {
  const auto width = static_cast<Eigen::Index>(layout.row_width);
  std::vector<comm::Buffer> messages;
  for (int shard = 0; shard < shards; ++shard) {
    const comm::ChunkBounds range = shard_rows(layout, shards, shard);
    RowMessage message;
    for (const std::size_t row : touched) {
      if (row < range.begin || row >= range.end) continue;
      message.pushed.push_back(row);
      const float* values = gradient.data() + row_offset(layout, row);
      message.values.insert(message.values.end(), values, values + width);
    }
    for (const std::size_t row : next_touched) {
      if (row >= range.begin && row < range.end) message.pulled.push_back(row);
    }
    messages.push_back(encode(message));
  }
  return messages;
}

/// The rows each shard sent back, into `parameters`.
void take_rows(const models::SparseLayout& layout, int shards, const std::vector<std::size_t>& next_touched,
               const std::vector<comm::Buffer>& replies, models::Parameters& parameters) {
  const auto width = static_cast<Eigen::Index>(layout.row_width);
  for (int shard = 0; shard < shards; ++shard) {
    const comm::ChunkBounds range = shard_rows(layout, shards, shard);
    const std::span<const float> values = replies[static_cast<std::size_t>(shard)].values();
    std::size_t at = 0;
    for (const std::size_t row : next_touched) {
      if (row < range.begin || row >= range.end) continue;
      std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(at), width, parameters.data() + row_offset(layout, row));
      at += static_cast<std::size_t>(width);
    }
  }
}

}  // namespace

HybridWorker::HybridWorker(TrainingContext context, int rank, const models::Parameters* server_rows)
    : context_(std::move(context)), rank_(rank), server_rows_(server_rows) {}

void HybridWorker::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const models::TrainableModel& model = setup.model();
  const models::SparseLayout layout = *model.sparse_layout();
  const Meter meter = context_.meter(rank_);
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  S4uTransport dense_transport(context_.network,
                               {.name = "allreduce", .rank = rank_, .size = workers, .machines = setup.graph.worker_machines()},
                               meter);
  S4uTransport row_transport(context_.network, {.name = kGroup, .rank = rank_, .size = workers + shards}, meter);
  std::vector<int> servers(static_cast<std::size_t>(shards));
  std::iota(servers.begin(), servers.end(), workers);
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, layout.dense);
  const auto dense = static_cast<Eigen::Index>(layout.dense);

  models::BatchStream batches(setup.schedule, rank_);
  models::Parameters parameters = model.initial_parameters();
  models::Parameters gradient;
  std::vector<std::size_t> rows = [&] {
    const auto first = batches.next();
    return std::vector<std::size_t>(first.begin(), first.end());
  }();
  std::vector<std::size_t> touched;
  std::vector<std::size_t> next_touched;
  model.touched_rows(setup.data.train, rows, touched);
  // The whole model (the servers' rows, this worker's dense part) is put together only for evaluations.
  const auto observe = [&](std::int64_t iteration) {
    if (!evaluation_due(setup, iteration)) {
      after_iteration(context_, iteration, parameters);
      return;
    }
    models::Parameters view = *server_rows_;
    view.head(dense) = parameters.head(dense);
    after_iteration(context_, iteration, view);
  };
  if (rank_ == 0) observe(0);

  for (std::int64_t iteration = 1; iteration <= setup.total_iterations; ++iteration) {
    compute_gradient(context_, meter, rank_, parameters, rows, gradient);
    context_.observer->on_gradient_staleness(0);

    // Dense part: averaged over all workers, as gradient averaging does.
    models::Parameters dense_gradient = gradient.head(dense);
    setup.collectives.allreduce().run(dense_transport, comm::Block(std::span<float>(dense_gradient.data(), layout.dense)));
    dense_gradient /= static_cast<float>(workers);
    models::Parameters dense_parameters = parameters.head(dense);
    optimizer->apply(dense_parameters, dense_gradient);
    parameters.head(dense) = dense_parameters;
    charge_compute(meter, optimizer->flops(layout.dense));

    // Sparse part: the touched rows' gradients to their servers, the next batch's rows back.
    std::vector<std::size_t> next_rows;
    next_touched.clear();
    if (iteration < setup.total_iterations) {
      const auto next = batches.next();
      next_rows.assign(next.begin(), next.end());
      model.touched_rows(setup.data.train, next_rows, next_touched);
    }
    std::vector<comm::Buffer> messages = row_messages(layout, shards, touched, next_touched, gradient);
    const std::vector<comm::Buffer> replies = row_transport.exchange(servers, std::move(messages), servers);
    take_rows(layout, shards, next_touched, replies, parameters);
    rows = std::move(next_rows);
    touched.swap(next_touched);
    if (rank_ == 0) {
      context_.observer->on_update();
      observe(iteration);
    }
  }
}

HybridServer::HybridServer(TrainingContext context, int shard, models::Parameters* server_rows)
    : context_(std::move(context)), shard_(shard), server_rows_(server_rows) {}

void HybridServer::operator()() {
  const TrainingSetup& setup = *context_.setup;
  const models::SparseLayout layout = *setup.model().sparse_layout();
  const int workers = context_.scenario->cluster.workers;
  const int shards = context_.scenario->training.shards;
  const Meter meter = context_.meter(workers + shard_);
  S4uTransport transport(context_.network, {.name = kGroup, .rank = workers + shard_, .size = workers + shards}, meter);
  std::vector<int> peers(static_cast<std::size_t>(workers));
  std::iota(peers.begin(), peers.end(), 0);
  // State for every row (only this shard's are used), indexed from the first row.
  const std::unique_ptr<models::Optimizer> optimizer = make_optimizer(context_, layout.rows * layout.row_width);
  const comm::ChunkBounds range = shard_rows(layout, shards, shard_);
  const auto width = static_cast<Eigen::Index>(layout.row_width);
  models::Parameters& rows = *server_rows_;  // this shard's rows of it are this server's
  const float scale = 1.0F / static_cast<float>(workers);

  for (std::int64_t clock = 1; clock <= setup.total_iterations; ++clock) {
    std::vector<RowMessage> pushes;
    for (const comm::Buffer& buffer : transport.recv_from_each(peers)) pushes.push_back(decode(buffer, layout.row_width));
    // Each pushed row: the sum of its gradients in worker order, times 1/p, then one SGD step.
    std::map<std::size_t, models::Parameters> sums;
    for (const RowMessage& push : pushes) {
      for (std::size_t i = 0; i < push.pushed.size(); ++i) {
        const Eigen::Map<const models::Parameters> values(push.values.data() + i * layout.row_width, width);
        auto [it, fresh] = sums.try_emplace(push.pushed[i], values);
        if (!fresh) it->second += values;
      }
    }
    double flops = 0.0;
    optimizer->begin_update();
    for (auto& [row, sum] : sums) {
      if (row < range.begin || row >= range.end) throw std::logic_error("hybrid: a row pushed to the wrong server");
      sum *= scale;
      optimizer->update(std::span<float>(rows.data() + row_offset(layout, row), layout.row_width),
                        std::span<const float>(sum.data(), layout.row_width), row * layout.row_width);
      flops += static_cast<double>(workers + 1) * static_cast<double>(width) + optimizer->flops(layout.row_width);
    }
    charge_compute(meter, flops);
    std::vector<comm::Buffer> replies;
    for (const RowMessage& push : pushes) {
      std::vector<float> values;
      values.reserve(push.pulled.size() * layout.row_width);
      for (const std::size_t row : push.pulled) {
        const float* start = rows.data() + row_offset(layout, row);
        values.insert(values.end(), start, start + width);
      }
      replies.emplace_back(std::move(values));
    }
    transport.send_to_each(peers, std::move(replies));
  }
}

}  // namespace dtsim::runtime
