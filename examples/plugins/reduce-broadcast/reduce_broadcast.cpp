// An allreduce in two halves: every rank sends its whole block to rank 0, which adds them in rank order,
// then rank 0 sends the sum back to every rank. On a full mesh each rank has its own link to rank 0, so
// each half is one message time: 2 (alpha + n/B) for any number of ranks, at the price of rank 0's links
// carrying p - 1 blocks each way where a ring carries 2(p-1)/p.
//
// And an all-to-all in p - 1 pairwise rounds: in round k every rank sends rank + k its piece and receives
// rank - k's, one message at a time, (p-1)(alpha + n/(pB)) on a full mesh, where the built-in direct
// algorithm posts all p - 1 at once.
//
// Build it against an installed dtsim (see CMakeLists.txt beside it), then:
//   dtsim check-plugin build/libreduce_broadcast.so
//   dtsim collective --plugin build/libreduce_broadcast.so --topology mesh --algo reduce_broadcast --ranks 8
//   dtsim run scenario.yaml --plugin build/libreduce_broadcast.so   (training.architecture.algorithm: reduce_broadcast)

#include <dtsim/plugin.hpp>

#include <vector>

namespace {

using dtsim::comm::Block;
using dtsim::comm::Buffer;
using dtsim::comm::Transport;

class ReduceBroadcastAllreduce final : public dtsim::comm::CollectiveAlgorithm {
 public:
  [[nodiscard]] dtsim::comm::Operation operation() const override { return dtsim::comm::Operation::allreduce; }

  void run(Transport& transport, Block data) const override {
    const int ranks = transport.size();
    if (ranks == 1) return;
    if (transport.rank() != 0) {
      transport.send(0, data.copy());
      data.assign(transport.recv(0));
      return;
    }
    std::vector<int> others;
    for (int r = 1; r < ranks; ++r) others.push_back(r);
    // Rank order (rank 0's own block first) so that the sum is the same bits whatever arrives first.
    for (const Buffer& block : transport.recv_from_each(others)) data.add(block);
    transport.send_to_each(others, std::vector<Buffer>(others.size(), data.copy()));
  }

  [[nodiscard]] dtsim::core::Seconds predicted_time(int ranks, dtsim::core::Bytes size,
                                                    const dtsim::comm::AlphaBeta& cost) const override {
    if (ranks == 1) return dtsim::core::Seconds(0.0);
    return (cost.alpha + size / cost.bandwidth) * 2.0;
  }

  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class PairwiseAllToAll final : public dtsim::comm::CollectiveAlgorithm {
 public:
  [[nodiscard]] dtsim::comm::Operation operation() const override { return dtsim::comm::Operation::all_to_all; }

  void run(Transport& transport, Block data) const override {
    const int ranks = transport.size();
    const std::size_t piece = data.size() / static_cast<std::size_t>(ranks);
    if (ranks == 1 || piece == 0) return;
    const auto part = [&](int rank) {
      const std::size_t begin = static_cast<std::size_t>(rank) * piece;
      return data.part(begin, begin + piece);
    };
    const int me = transport.rank();
    // A piece received in round k is sent in round p - k: the block is written once every round is done.
    std::vector<Buffer> received(static_cast<std::size_t>(ranks));
    for (int k = 1; k < ranks; ++k) {
      const int to = (me + k) % ranks;
      const int from = (me - k + ranks) % ranks;
      received[static_cast<std::size_t>(from)] = transport.send_recv(to, part(to).copy(), from);
    }
    for (int r = 0; r < ranks; ++r) {
      if (r != me) part(r).assign(received[static_cast<std::size_t>(r)]);
    }
  }

  [[nodiscard]] dtsim::core::Seconds predicted_time(int ranks, dtsim::core::Bytes size,
                                                    const dtsim::comm::AlphaBeta& cost) const override {
    if (ranks == 1) return dtsim::core::Seconds(0.0);
    const double piece = 4.0 * static_cast<double>(static_cast<std::size_t>(size.value() / 4.0) /
                                                   static_cast<std::size_t>(ranks));
    return (cost.alpha + dtsim::core::Bytes(piece) / cost.bandwidth) * static_cast<double>(ranks - 1);
  }

  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

}  // namespace

DTSIM_PLUGIN(registries) {
  registries.collectives.allreduce.add(
      "reduce_broadcast", "every rank sends its block to rank 0, which sends the sum back: 2(a + n/B)",
      {.make = [] { return std::make_unique<ReduceBroadcastAllreduce>(); }});
  registries.collectives.all_to_all.add(
      "pairwise", "p - 1 rounds, each rank sending rank + k its piece: (p-1)(a + n/(pB))",
      {.make = [] { return std::make_unique<PairwiseAllToAll>(); }});
}
