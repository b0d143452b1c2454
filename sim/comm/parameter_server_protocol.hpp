#pragma once
// Synchronous parameter-server exchange: every worker pushes its gradient to the servers, each server
// combines its shard of them into one update, and every worker pulls the new parameters. The parameters
// are sharded by key range: server j holds chunk_bounds(n, S, j) of the n parameters.

#include "sim/comm/transport.hpp"
#include "sim/core/units.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <utility>

namespace dtsim::comm {

/// Worker side: pushes shard j of `gradient` to `servers[j]`, all at once, then waits for every server's
/// shard of the new parameters and returns them joined in key order. With `steps` > 0, each shard message
/// ends with one more float: how many steps' gradients the push sums (see take_steps()).
Buffer push_and_pull(Transport& transport, std::span<const int> servers, const Buffer& gradient, std::int64_t steps = 0);

/// Worker side of a failure it does not come back from: tells every server, with an empty message, that
/// no more gradients will come from it.
void leave(Transport& transport, std::span<const int> servers);

/// Server side: whether a worker's message is its leave().
inline bool is_leave(const Buffer& message) { return message.size() == 0; }

/// Server side of a push sent with `steps`: the gradient without its last element, and that element.
std::pair<Buffer, std::int64_t> take_steps(const Buffer& message);

/// Server side of one round: receives one gradient from each of `workers` (all transfers at once),
/// calls `update` with their elementwise mean to get the new parameters, and sends those to every
/// worker (all transfers at once).
void serve_round(Transport& transport, std::span<const int> workers, const std::function<Buffer(const Buffer&)>& update);

/// Elementwise mean of equally long buffers, summed in the order given.
Buffer mean_of(const std::vector<Buffer>& buffers);

/// Closed-form alpha-beta time of one push (or one pull) of `size` from each of `workers` workers to
/// `shards` servers through a switch. Every flow carries n/S bytes; a worker link carries S of them and a
/// server link p, all alike, so each flow gets min(B_w / S, B_s / p):
///   alpha_w + alpha_s + max(n / B_w, p n / (S B_s)).
core::Seconds push_time(int workers, core::Bytes size, core::Seconds worker_latency, core::BytesPerSecond worker_bandwidth,
                        core::Seconds server_latency, core::BytesPerSecond server_bandwidth, int shards = 1);

}  // namespace dtsim::comm
