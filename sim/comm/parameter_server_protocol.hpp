#pragma once
// Synchronous parameter-server exchange: every worker pushes its gradient to the server, the server
// combines them into one update, and every worker pulls the new parameters.

#include "sim/comm/transport.hpp"
#include "sim/core/units.hpp"

#include <functional>

namespace dtsim::comm {

/// Worker side: pushes `gradient` to `server`, then waits for the parameters it sends back.
Buffer push_and_pull(Transport& transport, int server, Buffer gradient);

/// Server side of one round: receives one gradient from each of `workers` (all transfers at once),
/// calls `update` with their elementwise mean to get the new parameters, and sends those to every
/// worker (all transfers at once).
void serve_round(Transport& transport, std::span<const int> workers, const std::function<Buffer(const Buffer&)>& update);

/// Elementwise mean of equally long buffers, summed in the order given.
Buffer mean_of(const std::vector<Buffer>& buffers);

/// Closed-form alpha-beta time of one push (or one pull) of `size` from each of `workers` workers through
/// a switch: path latency plus the size at the rate of the bottleneck, where the server link is shared
/// fairly by all the workers' flows: alpha_w + alpha_s + n / min(B_w, B_s / p).
core::Seconds push_time(int workers, core::Bytes size, core::Seconds worker_latency, core::BytesPerSecond worker_bandwidth,
                        core::Seconds server_latency, core::BytesPerSecond server_bandwidth);

}  // namespace dtsim::comm
