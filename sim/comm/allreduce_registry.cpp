#include "sim/comm/allreduce_algorithm.hpp"
#include "sim/comm/binomial_tree_allreduce.hpp"
#include "sim/comm/direct_allreduce.hpp"
#include "sim/comm/halving_doubling_allreduce.hpp"
#include "sim/comm/ring_allreduce.hpp"

#include <algorithm>

namespace dtsim::comm {

ChunkBounds chunk_bounds(std::size_t elements, int parts, int index) {
  const auto p = static_cast<std::size_t>(parts);
  const auto i = static_cast<std::size_t>(index);
  const std::size_t base = elements / p;
  const std::size_t extra = elements % p;
  const std::size_t begin = i * base + std::min(i, extra);
  return ChunkBounds{begin, begin + base + (i < extra ? 1 : 0)};
}

void register_builtin_allreduce(AllreduceRegistry& registry) {
  registry.add("ring", "reduce-scatter then allgather around the ring: 2(p-1)(a + n/(pB))",
               [] { return std::make_unique<RingAllreduce>(); });
  registry.add("tree", "binomial-tree reduce to rank 0, then binomial broadcast: 2 ceil(log2 p)(a + n/B)",
               [] { return std::make_unique<BinomialTreeAllreduce>(); });
  registry.add("halving_doubling",
               "recursive halving reduce-scatter, recursive doubling allgather (Rabenseifner), any p",
               [] { return std::make_unique<HalvingDoublingAllreduce>(); });
  registry.add("direct", "every rank sends each other rank its chunk, then its reduced chunk: 2(a + n/(pB))",
               [] { return std::make_unique<DirectAllreduce>(); });
}

}  // namespace dtsim::comm
