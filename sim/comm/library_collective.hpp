#pragma once
// What a collective communication library adds to the network's time, as NCCL's own cost model states it
// (src/graph/tuning.cc): a launch latency, a latency per ring step, and a protocol that trades latency for
// bandwidth, chosen per call by the time it predicts. LL moves 8-byte lines of 4 bytes of data and a flag
// (fast to start, a quarter of the bandwidth), LL128 128-byte lines of 120 bytes, Simple whole chunks
// behind memory fences (the slowest to start, the full bandwidth). On a node whose switch reduces (NVLink
// SHARP), a single-node allreduce may instead run on the switch (NCCL's NVLS algorithm).

#include "sim/comm/collective_algorithm.hpp"

#include <array>
#include <functional>
#include <map>
#include <vector>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

namespace dtsim::comm {

/// The ring's three protocols, and NVLS: the allreduce reduced in the node's switch.
enum class Protocol { LL, LL128, Simple, NVLS };
inline constexpr std::array<Protocol, 3> kProtocols{Protocol::LL, Protocol::LL128, Protocol::Simple};
[[nodiscard]] std::string_view to_string(Protocol protocol);

/// One protocol's costs in NCCL's ring model: seconds per call, seconds per step inside a node (NVLink)
/// and between nodes (the network), and the fraction of the bandwidth it keeps.
struct ProtocolCosts {
  double launch = 0.0;
  double intra_step = 0.0;
  double inter_step = 0.0;
  double bandwidth_share = 1.0;
};

/// Where a call runs, as the model needs it.
struct CallShape {
  Operation operation = Operation::allreduce;
  int ranks = 1;
  int nodes = 1;  ///< machines among the ranks
  double bytes = 0.0;
};

/// The network's time for a call, and the part of it that is latency: what the call takes with empty
/// messages on an idle network. A protocol's bandwidth share stretches the rest only.
struct NetworkTime {
  double total = 0.0;
  double latency = 0.0;
};

/// A protocol's cost for `call`: its latency (launch and steps) and its bandwidth share. NCCL's ring
/// model: 2(p-1) steps for allreduce, p-1 for reduce-scatter and allgather, p for broadcast and reduce, of
/// which 2n (allreduce over n > 1 nodes), n-1 or n cross nodes; LL keeps 1/4 of the bandwidth (1/3 for
/// allgather, reduce-scatter and broadcast within a node); LL128 keeps 0.92 (0.7 with one rank per node);
/// across nodes a step inside a node costs at least the network post's overhead (1 us, 3 us for Simple);
/// Simple's latency x1.9 for an allreduce over several nodes from p/16 x 64 KiB on (the ring's plateau).
[[nodiscard]] ProtocolCosts protocol_costs(Protocol protocol, const CallShape& call);

/// The library's time for `call` with `protocol` when the network alone takes `network`: the protocol's
/// latency, the network's latency, and the rest of the network's time over the protocol's bandwidth share.
[[nodiscard]] double library_time(Protocol protocol, const CallShape& call, NetworkTime network);

/// The protocol NCCL would pick: the one whose library_time is shortest (the first of LL, LL128, Simple
/// on a tie).
[[nodiscard]] Protocol chosen_protocol(const CallShape& call, NetworkTime network);

/// NCCL's nvlsEfficiency (src/graph/tuning.cc at 5067397c), the share of the links' bandwidth NVLS reaches, by
/// the GPUs' generation: compute capability 9.0 (Hopper) and 10.0 (Blackwell).
inline constexpr double kHopperNvlsEfficiency = 0.85;
inline constexpr double kBlackwellNvlsEfficiency = 0.74;

/// A node's switch that reduces (NVLink SHARP): what each GPU's link to it carries per second (each
/// direction), its latency, and the share of that bandwidth NVLS reaches on its GPUs.
struct SwitchReduction {
  double bandwidth = 0.0;
  double latency = 0.0;
  double efficiency = kHopperNvlsEfficiency;
};

/// NCCL's NVLS allreduce on one node of `call.ranks` GPUs: each GPU's link carries its whole buffer up (the
/// switch reads every shard to reduce it) and its own reduced shard, and as much down (the reduced shard, then
/// every shard multicast): bytes x (1 + 1/p) each way. NCCL's model (src/graph/tuning.cc) gives it 25 us of
/// latency and `efficiency` of the link's bandwidth (nvlsEfficiency: 0.85 on Hopper, 0.74 on Blackwell).
/// `network` is the time of that traffic on the network.
[[nodiscard]] double nvls_time(NetworkTime network, double efficiency = kHopperNvlsEfficiency);
/// The bytes each rank sends to each other rank to put NVLS's traffic on a switch's links.
[[nodiscard]] double nvls_message_bytes(const CallShape& call);

/// An algorithm run as a library runs it: the messages move as the algorithm sends them, then each rank spends what the
/// chosen protocol adds (library_time - network time) as communication. One rank's own network time decides, as each
/// rank's proxy does in the library; its latency part counts the ring's steps (those inside a node at the route latency
/// to a rank of the same machine, those across nodes at the route latency to a rank of another) as the transport gives
/// them (Transport::latency_to). With a reducing switch, an allreduce of a timing-only block whose ranks are all on one
/// node runs as NVLS when the closed forms on the switch's links say NVLS is faster than the ring with its best
/// protocol (NCCL picks by its model the same way); a block with values keeps the ring, whose messages carry them.
class LibraryCollective final : public CollectiveAlgorithm {
 public:
  /// Told, when given, each call's choice by rank 0 of the transport (`dtsim collective` prints them).
  using ChoiceSink = std::function<void(Protocol)>;

  explicit LibraryCollective(std::unique_ptr<CollectiveAlgorithm> inner, ChoiceSink on_choice = {},
                             std::optional<SwitchReduction> nvls = std::nullopt)
      : inner_(std::move(inner)), on_choice_(std::move(on_choice)), nvls_(nvls) {}

  [[nodiscard]] Operation operation() const override { return inner_->operation(); }
  void run(Transport& transport, Block data) const override;
  /// Messages that carry values run the inner algorithm on the one ring in rank order: its values.
  [[nodiscard]] bool computes_values_in_memory() const override { return inner_->computes_values_in_memory(); }
  void values_in_memory(const GroupBlocks& group) const override { inner_->values_in_memory(group); }
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return inner_->uncontended_on(); }
  [[nodiscard]] bool names_every_rank() const override { return inner_->names_every_rank(); }

  /// NCCL's channels over one placement of the ranks on machines: the rings and each rank's place in them.
  struct Channels {
    std::shared_ptr<const RingSet::Rings> rings;  ///< null: one ring serves
    std::shared_ptr<const std::vector<std::vector<int>>> places;
  };

 private:
  [[nodiscard]] bool runs_nvls(const CallShape& call, bool has_values) const;
  /// The channels' rings a ring algorithm's timing-only call runs on (comm::channel_rings), null where one
  /// ring serves; derived once per placement of the ranks on machines.
  [[nodiscard]] const Channels* channels(const Transport& transport, const CallShape& call, bool has_values) const;

  std::unique_ptr<CollectiveAlgorithm> inner_;
  ChoiceSink on_choice_;
  std::optional<SwitchReduction> nvls_;
  // Every rank calls one collective: in one thread under SimGrid, in a thread each on the tests' in-process
  // transport, so the cache is locked.
  mutable std::mutex channels_mutex_;
  mutable std::map<std::vector<int>, Channels> channels_;
};

/// The machines among `transport`'s ranks (its size when it names none).
[[nodiscard]] int machine_count(const Transport& transport);

}  // namespace dtsim::comm
