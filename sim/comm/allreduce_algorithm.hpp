#pragma once
// An allreduce algorithm: how its messages move over the transport seam, and the closed-form time
// they take on a network where none of them share a link. Registered by the name used in
// `training.architecture.algorithm`.

#include "sim/comm/transport.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/units.hpp"

#include <functional>
#include <memory>
#include <span>
#include <string>

namespace dtsim::comm {

/// The textbook cost of one message of n bytes between neighbours: alpha + n / bandwidth.
struct AlphaBeta {
  core::Seconds alpha;
  core::BytesPerSecond bandwidth;
};

class AllreduceAlgorithm {
 public:
  virtual ~AllreduceAlgorithm() = default;

  /// Replaces `data` on every rank with the elementwise sum over all ranks; every rank calls it with the
  /// same number of elements. Every rank ends with bitwise the same values.
  virtual void run(Transport& transport, std::span<float> data) const = 0;

  /// Alpha-beta time of one allreduce of `size` over `ranks` ranks when every message goes to a neighbour
  /// one link away and no two concurrent messages share a link direction.
  [[nodiscard]] virtual core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const = 0;

  /// A built-in topology on which that holds for every rank count ("ring" or "mesh").
  [[nodiscard]] virtual std::string uncontended_on() const = 0;
};

using AllreduceFactory = std::function<std::unique_ptr<AllreduceAlgorithm>()>;
using AllreduceRegistry = core::Registry<AllreduceFactory>;

/// Adds ring, tree, halving_doubling and direct.
void register_builtin_allreduce(AllreduceRegistry& registry);

/// [begin, end) of chunk `index` when `elements` are cut into `parts` chunks differing by at most one.
struct ChunkBounds {
  std::size_t begin = 0;
  std::size_t end = 0;
};
ChunkBounds chunk_bounds(std::size_t elements, int parts, int index);

}  // namespace dtsim::comm
