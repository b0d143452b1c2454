#pragma once
// A collective algorithm: how its messages move over the transport seam, and the closed-form time they
// take on a network where none of them share a link. Registered per operation by the name used in
// `training.architecture.algorithm` and `dtsim collective --algo`.

#include "sim/comm/transport.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/units.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::comm {

/// What a collective computes. Every rank passes a block of the same n elements; chunk r is
/// chunk_bounds(n, p, r).
enum class Operation {
  allreduce,       ///< every rank's block becomes the elementwise sum over all ranks
  reduce_scatter,  ///< chunk r of rank r's block becomes the sum of chunk r; the rest is left undefined
  allgather,       ///< chunk r of rank r's block is its contribution; every rank's block becomes all chunks
  broadcast,       ///< every rank's block becomes rank 0's
  reduce,          ///< rank 0's block becomes the sum; the other ranks' blocks are left undefined
  all_to_all,      ///< piece j of rank i's block becomes piece i of rank j's (pieces: all_to_all.hpp)
};

[[nodiscard]] std::string_view to_string(Operation operation);
[[nodiscard]] std::optional<Operation> operation_named(std::string_view name);
[[nodiscard]] std::vector<Operation> all_operations();

/// nccl-tests' bus-bandwidth factor: busbw = algbw x factor, so that busbw is comparable with the link
/// bandwidth whatever the operation and rank count (2(p-1)/p for allreduce, (p-1)/p for reduce-scatter
/// and allgather, (p-1)/p for all-to-all, 1 for broadcast and reduce).
[[nodiscard]] double bus_bandwidth_factor(Operation operation, int ranks);

/// Every rank's block of one call of a collective, by rank, and the machine of each rank (empty: a machine per
/// rank), as CollectiveAlgorithm::values_in_memory() takes them.
struct GroupBlocks {
  std::span<const std::span<float>> blocks;
  std::span<const int> machines{};
};

/// The textbook cost of one message of n bytes between neighbours: alpha + n / bandwidth.
struct AlphaBeta {
  core::Seconds alpha;
  core::BytesPerSecond bandwidth;
};

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;

  [[nodiscard]] virtual Operation operation() const = 0;

  /// Runs the operation on this rank's `data`; every rank calls it with the same number of elements. Where
  /// the result is defined it is bitwise the same on every rank. A timing-only block moves the same
  /// messages without values.
  virtual void run(Transport& transport, Block data) const = 0;

  /// Whether values_in_memory() computes this algorithm's values: then a run may time the collective without
  /// values (the phase shortcut, the analytical network) and compute its values apart (comm::ValueMeeting).
  [[nodiscard]] virtual bool computes_values_in_memory() const { return false; }
  /// What run() leaves in every rank's block where the operation defines the result, computed for the whole
  /// group at once in memory: the same additions in the same order as run()'s messages make them, so bitwise
  /// the same values. Throws std::logic_error where computes_values_in_memory() is false.
  virtual void values_in_memory(const GroupBlocks& group) const;

  /// Alpha-beta time of one operation on `size` (the whole block, n x 4 bytes) over `ranks` ranks when
  /// every message goes to a neighbour one link away and no two concurrent messages share a link direction.
  [[nodiscard]] virtual core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const = 0;

  /// A built-in topology on which that holds for every rank count ("ring" or "mesh").
  [[nodiscard]] virtual std::string uncontended_on() const = 0;

  /// Whether its timing-only phases tell the transport where every rank sends (comm::RingSet), so that one
  /// rank may stand for all (runtime/mirrored_ranks.hpp).
  [[nodiscard]] virtual bool names_every_rank() const { return false; }
};

/// The most ranks an every-to-every ("direct") reduce-scatter, allgather or allreduce is simulated with
/// message by message (SimGrid), or under `network_model: analytical` by the fluid model; beyond, the analytical
/// network times it from the loads of the links (topology/every_to_every_loads.hpp), up to
/// kMaxAllToAllRanksAnalytical ranks.
inline constexpr int kMaxAllToAllRanks = 128;
inline constexpr int kMaxAllToAllRanksAnalytical = 4096;

/// Where an algorithm would run: the number of workers on each machine in use (in machine order; all 1 on a
/// flat topology), and whether `network_model: analytical` times its phases.
struct Placement {
  std::span<const int> workers_per_machine;
  bool analytical = false;
};

/// Why an algorithm cannot run on a placement of the workers, and what to do instead.

struct PlacementRefusal {
  std::string message;
  std::string hint;
};

/// An algorithm's registry entry: how to make it, and the placements of workers it needs.
struct CollectivePlugin {
  std::function<std::unique_ptr<CollectiveAlgorithm>()> make;
  /// Why the algorithm cannot run on a placement; empty when it runs anywhere.
  std::function<std::optional<PlacementRefusal>(const Placement& placement)> refuses;
  /// Whether its timing-only messages are all ring phases (Transport::shift_rounds) or steps of the whole
  /// group (Transport::step), which `network_model: analytical` times at once; the others' messages go one
  /// by one.
  bool timed_at_once = false;
};

using CollectiveRegistry = core::Registry<CollectivePlugin>;

/// One registry of algorithms per operation.
struct CollectiveCatalog {
  CollectiveRegistry allreduce{"allreduce algorithm"};
  CollectiveRegistry reduce_scatter{"reduce_scatter algorithm"};
  CollectiveRegistry allgather{"allgather algorithm"};
  CollectiveRegistry broadcast{"broadcast algorithm"};
  CollectiveRegistry reduce{"reduce algorithm"};
  CollectiveRegistry all_to_all{"all_to_all algorithm"};

  [[nodiscard]] const CollectiveRegistry& of(Operation operation) const;
  [[nodiscard]] CollectiveRegistry& of(Operation operation);
};

/// Adds every built-in algorithm of every operation.
void register_builtin_collectives(CollectiveCatalog& catalog);

/// [begin, end) of chunk `index` when `elements` are cut into `parts` chunks differing by at most one.
struct ChunkBounds {
  std::size_t begin = 0;
  std::size_t end = 0;
};
ChunkBounds chunk_bounds(std::size_t elements, int parts, int index);

/// Chunk `index` (taken modulo `parts`) of `data`.
Block chunk_of(const Block& data, int parts, int index);

/// Every rank of `ranks` but `rank`, ascending: the peers of an every-to-every step.
std::vector<int> others_than(int rank, int ranks);

}  // namespace dtsim::comm
