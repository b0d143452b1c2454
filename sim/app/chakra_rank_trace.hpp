#pragma once
// One rank's Chakra trace as dtsim writes it: nodes in the order the rank runs them, each compute node after
// the one before it on the rank's stream; messages and collectives hung on the compute they follow.

#include "sim/traces/chakra_trace.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::app {

class ChakraRankTrace {
 public:
  explicit ChakraRankTrace(double rate) : rate_(rate) {}

  /// A compute node of `flops` executed at the device's sustained rate.
  std::uint64_t compute(const std::string& name, double flops, std::vector<std::uint64_t> after) {
    traces::ChakraNode n = traces::chakra_node(next_id(), name, traces::ChakraNodeType::compute, std::move(after));
    n.duration_micros = static_cast<std::uint64_t>(std::llround(flops / rate_ * 1e6));
    n.num_ops = std::llround(flops);
    return add(std::move(n));
  }

  /// An allreduce of `bytes` over the process group `group` ("": every rank) once `after` is done.
  std::uint64_t allreduce(const std::string& name, double bytes, std::uint64_t after, const std::string& group = "") {
    traces::ChakraNode n = traces::chakra_node(next_id(), name, traces::ChakraNodeType::collective, {after});
    n.comm_type = static_cast<int>(traces::ChakraCollective::all_reduce);
    n.comm_size = std::llround(bytes);
    n.pg_name = group;
    return add(std::move(n));
  }

  /// A send of `bytes` from rank `from` to rank `to` (a receive when `receive`), matched by `tag`.
  std::uint64_t message(bool receive, const std::string& name, std::int64_t bytes, int from, int to, int tag,
                        std::vector<std::uint64_t> after) {
    traces::ChakraNode n = traces::chakra_node(
        next_id(), name, receive ? traces::ChakraNodeType::receive : traces::ChakraNodeType::send, std::move(after));
    n.comm_size = bytes;
    n.comm_src = from;
    n.comm_dst = to;
    n.comm_tag = tag;
    return add(std::move(n));
  }

  [[nodiscard]] const traces::ChakraTrace& trace() const { return trace_; }

 private:
  std::uint64_t next_id() const { return static_cast<std::uint64_t>(trace_.nodes.size()); }
  std::uint64_t add(traces::ChakraNode node) {
    trace_.nodes.push_back(std::move(node));
    return trace_.nodes.back().id;
  }
  double rate_;
  traces::ChakraTrace trace_;
};

}  // namespace dtsim::app
