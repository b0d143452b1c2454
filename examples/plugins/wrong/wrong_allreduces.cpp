// Three allreduces that are wrong on purpose, to show what `dtsim check-plugin` reports:
//   forgets_root  rank 0 leaves its own block out of the sum, and claims a time of one message where it takes two;
//   crashes       dereferences a null pointer on rank 1;
//   hangs         rank 0 spins forever (in wall-clock time: the simulation never advances).

#include <dtsim/plugin.hpp>

#include <atomic>
#include <vector>

namespace {

using dtsim::comm::Block;
using dtsim::comm::Buffer;
using dtsim::comm::Transport;

class ForgetsRoot final : public dtsim::comm::CollectiveAlgorithm {
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
    data.zero();
    for (const Buffer& block : transport.recv_from_each(others)) data.add(block);
    transport.send_to_each(others, std::vector<Buffer>(others.size(), data.copy()));
  }
  [[nodiscard]] dtsim::core::Seconds predicted_time(int, dtsim::core::Bytes size,
                                                    const dtsim::comm::AlphaBeta& cost) const override {
    return cost.alpha + size / cost.bandwidth;
  }
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class Crashes final : public dtsim::comm::CollectiveAlgorithm {
 public:
  [[nodiscard]] dtsim::comm::Operation operation() const override { return dtsim::comm::Operation::allreduce; }
  void run(Transport& transport, Block) const override {
    volatile int* nowhere = nullptr;
    if (transport.rank() == 1) *nowhere = 1;
  }
  [[nodiscard]] dtsim::core::Seconds predicted_time(int, dtsim::core::Bytes,
                                                    const dtsim::comm::AlphaBeta&) const override {
    return dtsim::core::Seconds(0.0);
  }
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

class Hangs final : public dtsim::comm::CollectiveAlgorithm {
 public:
  [[nodiscard]] dtsim::comm::Operation operation() const override { return dtsim::comm::Operation::allreduce; }
  void run(Transport& transport, Block) const override {
    std::atomic<bool> forever{true};
    while (transport.rank() == 0 && forever.load()) {
    }
  }
  [[nodiscard]] dtsim::core::Seconds predicted_time(int, dtsim::core::Bytes,
                                                    const dtsim::comm::AlphaBeta&) const override {
    return dtsim::core::Seconds(0.0);
  }
  [[nodiscard]] std::string uncontended_on() const override { return "mesh"; }
};

}  // namespace

DTSIM_PLUGIN(registries) {
  registries.collectives.allreduce.add("forgets_root", "leaves rank 0's block out, claims a + n/B",
                                       {.make = [] { return std::make_unique<ForgetsRoot>(); }});
  registries.collectives.allreduce.add("crashes", "dereferences a null pointer on rank 1",
                                       {.make = [] { return std::make_unique<Crashes>(); }});
  registries.collectives.allreduce.add("hangs", "spins forever on rank 0",
                                       {.make = [] { return std::make_unique<Hangs>(); }});
}
