#include "sim/comm/all_to_all.hpp"
#include "sim/comm/binomial_tree_collectives.hpp"
#include "sim/comm/collective_algorithm.hpp"
#include "sim/comm/direct_collectives.hpp"
#include "sim/comm/double_binary_tree_allreduce.hpp"
#include "sim/comm/halving_doubling_allreduce.hpp"
#include "sim/comm/hierarchical_allreduce.hpp"
#include "sim/comm/ring_collectives.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <array>
#include <stdexcept>
#include <utility>

namespace dtsim::comm {
namespace {

constexpr std::array<std::pair<Operation, std::string_view>, 6> kOperations{{
    {Operation::allreduce, "allreduce"},
    {Operation::reduce_scatter, "reduce_scatter"},
    {Operation::allgather, "allgather"},
    {Operation::broadcast, "broadcast"},
    {Operation::reduce, "reduce"},
    {Operation::all_to_all, "all_to_all"},
}};

template <class Algorithm>
CollectivePlugin make() {
  return {.make = [] { return std::make_unique<Algorithm>(); }, .refuses = {}};
}

/// An algorithm made of ring phases or steps of the whole group, which the analytical network times at once.
template <class Algorithm>
CollectivePlugin phased() {
  return {.make = [] { return std::make_unique<Algorithm>(); }, .refuses = {}, .timed_at_once = true};
}

/// The hierarchical algorithms run inside nodes and across them: they need several workers per machine, the
/// same number on each (on a flat topology the allreduce would be the ring one, the all-to-all the direct
/// one, under another name).
std::optional<PlacementRefusal> hierarchical_refuses(std::string_view algorithm, const Placement& placement) {
  const std::span<const int> workers_per_machine = placement.workers_per_machine;
  if (std::all_of(workers_per_machine.begin(), workers_per_machine.end(), [](int n) { return n == 1; })) {
    return PlacementRefusal{fmt::format("the hierarchical {} needs multi-device nodes, and the topology is flat", algorithm),
                            "use topology.kind: hierarchical with cluster.nodes, or another algorithm"};
  }
  if (std::any_of(workers_per_machine.begin(), workers_per_machine.end(),
                  [&](int n) { return n != workers_per_machine.front(); })) {
    return PlacementRefusal{fmt::format("the hierarchical {} needs the same number of workers on every node, "
                                        "and they fill the nodes unevenly ({} per node)",
                                        algorithm, fmt::join(workers_per_machine, ", ")),
                            "make cluster.workers a multiple of the devices per node, with nodes of one size"};
  }
  return std::nullopt;
}

/// Every-to-every algorithms post p(p-1) messages at once, and SimGrid (or the fluid model) shares bandwidth
/// among all of them at every event: a 1 MiB allreduce on 64 ranks takes 7 s, on 128 more than 100 s, and
/// 4,096 fill the memory. They are refused past kMaxAllToAllRanks ranks, or under the analytical network, which
/// times them from the links' loads beyond that, past kMaxAllToAllRanksAnalytical (each rank's steps list
/// every other rank, and the pattern keeps two numbers per pair: memory grows with p^2).
/// `instead` names the algorithms to use at that scale.
std::optional<PlacementRefusal> every_to_every_refuses(const Placement& placement, std::string_view instead) {
  const int ranks = std::accumulate(placement.workers_per_machine.begin(), placement.workers_per_machine.end(), 0);
  const int most = placement.analytical ? kMaxAllToAllRanksAnalytical : kMaxAllToAllRanks;
  if (ranks <= most) return std::nullopt;
  return PlacementRefusal{
      fmt::format("the direct algorithm posts p(p-1) = {} messages at once, and simulates at most {} ranks{} ({} here)",
                  static_cast<std::int64_t>(ranks) * (ranks - 1), most,
                  placement.analytical ? " under the analytical network" : "", ranks),
      placement.analytical ? fmt::format("use {} at this scale", instead)
                           : fmt::format("use network_model: analytical (up to {} ranks), or {} at this scale",
                                         kMaxAllToAllRanksAnalytical, instead)};
}

template <class Algorithm>
CollectivePlugin every_to_every(std::string_view instead) {
  return {.make = [] { return std::make_unique<Algorithm>(); },
          .refuses = [instead](const Placement& placement) { return every_to_every_refuses(placement, instead); },
          .timed_at_once = true};
}

/// The hierarchical all-to-all's rounds post p(k-1) and p(N-1) messages at once, which SimGrid and the fluid
/// model share bandwidth among at every event, as they do the direct algorithm's (no links' loads shortcut
/// here: its peers are not every other rank): it is refused where its larger round would post more messages
/// than the direct algorithm may, kMaxAllToAllRanks (kMaxAllToAllRanks - 1).
std::optional<PlacementRefusal> hierarchical_all_to_all_refuses(const Placement& placement) {
  if (auto refusal = hierarchical_refuses("all-to-all", placement)) return refusal;
  const std::span<const int> per_machine = placement.workers_per_machine;
  const std::int64_t k = per_machine.front();
  const auto machines = static_cast<std::int64_t>(per_machine.size());
  const std::int64_t messages = k * machines * (std::max(k, machines) - 1);
  const std::int64_t most = std::int64_t{kMaxAllToAllRanks} * (kMaxAllToAllRanks - 1);
  if (messages <= most) return std::nullopt;
  return PlacementRefusal{fmt::format("the hierarchical all-to-all posts up to {} messages at once ({} nodes of {}), "
                                      "and simulates at most {}",
                                      messages, machines, k, most),
                          "split the all-to-all's group (fewer ranks per expert group), or use larger nodes"};
}

}  // namespace

std::string_view to_string(Operation operation) {
  for (const auto& [op, name] : kOperations) {
    if (op == operation) return name;
  }
  return "?";
}

std::optional<Operation> operation_named(std::string_view name) {
  for (const auto& [op, op_name] : kOperations) {
    if (op_name == name) return op;
  }
  return std::nullopt;
}

std::vector<Operation> all_operations() {
  std::vector<Operation> out;
  for (const auto& [op, name] : kOperations) out.push_back(op);
  return out;
}

double bus_bandwidth_factor(Operation operation, int ranks) {
  const double p = ranks;
  switch (operation) {
    case Operation::allreduce: return 2.0 * (p - 1.0) / p;
    case Operation::reduce_scatter:
    case Operation::allgather:
    case Operation::all_to_all: return (p - 1.0) / p;
    case Operation::broadcast:
    case Operation::reduce: return 1.0;
  }
  return 1.0;
}

const CollectiveRegistry& CollectiveCatalog::of(Operation operation) const {
  switch (operation) {
    case Operation::allreduce: return allreduce;
    case Operation::reduce_scatter: return reduce_scatter;
    case Operation::allgather: return allgather;
    case Operation::broadcast: return broadcast;
    case Operation::reduce: return reduce;
    case Operation::all_to_all: return all_to_all;
  }
  return allreduce;
}

CollectiveRegistry& CollectiveCatalog::of(Operation operation) {
  return const_cast<CollectiveRegistry&>(std::as_const(*this).of(operation));
}

void CollectiveAlgorithm::values_in_memory(const GroupBlocks& group) const {
  static_cast<void>(group);
  throw std::logic_error(fmt::format("the {} algorithm does not compute its values in memory", to_string(operation())));
}

ChunkBounds chunk_bounds(std::size_t elements, int parts, int index) {
  const auto p = static_cast<std::size_t>(parts);
  const auto i = static_cast<std::size_t>(index);
  const std::size_t base = elements / p;
  const std::size_t extra = elements % p;
  const std::size_t begin = i * base + std::min(i, extra);
  return ChunkBounds{begin, begin + base + (i < extra ? 1 : 0)};
}

std::vector<int> others_than(int rank, int ranks) {
  std::vector<int> others;
  for (int r = 0; r < ranks; ++r) {
    if (r != rank) others.push_back(r);
  }
  return others;
}

Block chunk_of(const Block& data, int parts, int index) {
  const ChunkBounds bounds = chunk_bounds(data.size(), parts, ((index % parts) + parts) % parts);
  return data.part(bounds.begin, bounds.end);
}

void register_builtin_collectives(CollectiveCatalog& catalog) {
  catalog.allreduce.add("ring", "reduce-scatter then allgather around the ring: 2(p-1)(a + n/(pB))", phased<RingAllreduce>());
  catalog.allreduce.add("tree", "binomial-tree reduce to rank 0, then binomial broadcast: 2 ceil(log2 p)(a + n/B)",
                        phased<BinomialTreeAllreduce>());
  catalog.allreduce.add("halving_doubling",
                        "recursive halving reduce-scatter, recursive doubling allgather (Rabenseifner), any p",
                        phased<HalvingDoublingAllreduce>());
  catalog.allreduce.add("double_binary_tree",
                        "each half reduced and broadcast on its own binary tree, both at once: 2 floor(log2 p)(a + n/(2B))",
                        make<DoubleBinaryTreeAllreduce>());
  catalog.allreduce.add("hierarchical",
                        "ring reduce-scatter inside each node, ring allreduce across nodes, ring allgather inside",
                        {.make = make<HierarchicalAllreduce>().make,
                         .refuses = [](const Placement& placement) { return hierarchical_refuses("allreduce", placement); },
                         .timed_at_once = true});
  catalog.allreduce.add("direct", "every rank sends each other rank its chunk, then its reduced chunk: 2(a + n/(pB))",
                        every_to_every<DirectAllreduce>("ring (or tree, halving_doubling)"));

  catalog.reduce_scatter.add("ring", "p-1 steps around the ring: (p-1)(a + n/(pB))", phased<RingReduceScatter>());
  catalog.reduce_scatter.add("direct", "every rank sends chunk j to rank j at once: a + n/(pB)", every_to_every<DirectReduceScatter>("ring"));

  catalog.allgather.add("ring", "p-1 steps around the ring: (p-1)(a + n/(pB))", phased<RingAllgather>());
  catalog.allgather.add("direct", "every rank sends its chunk to every other at once: a + n/(pB)", every_to_every<DirectAllgather>("ring"));

  catalog.broadcast.add("tree", "binomial tree from rank 0: ceil(log2 p)(a + n/B)", phased<BinomialTreeBroadcast>());
  catalog.broadcast.add("direct", "rank 0 sends to every rank at once: a + n/B", phased<DirectBroadcast>());

  catalog.reduce.add("tree", "binomial tree to rank 0: ceil(log2 p)(a + n/B)", phased<BinomialTreeReduce>());
  catalog.reduce.add("direct", "every rank sends to rank 0 at once: a + n/B", phased<DirectReduce>());

  catalog.all_to_all.add("direct", "every rank sends each other rank its piece at once: a + n/(pB)",
                         every_to_every<DirectAllToAll>("hierarchical (on multi-device nodes)"));
  catalog.all_to_all.add(
      "hierarchical", "pieces gathered inside each node, then one message to each other node: 2 rounds, k-1 + N-1 messages",
      {.make = make<HierarchicalAllToAll>().make,
       .refuses = hierarchical_all_to_all_refuses,
       .timed_at_once = true});
}

}  // namespace dtsim::comm
