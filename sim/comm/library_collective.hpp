#pragma once
// What a collective communication library adds to the network's time, as NCCL's own cost model states it
// (src/graph/tuning.cc): a launch latency, a latency per ring step, and a protocol that trades latency for
// bandwidth, chosen per call by the time it predicts. LL moves 8-byte lines of 4 bytes of data and a flag
// (fast to start, a quarter of the bandwidth), LL128 128-byte lines of 120 bytes, Simple whole chunks
// behind memory fences (the slowest to start, the full bandwidth).

#include "sim/comm/collective_algorithm.hpp"

#include <array>
#include <functional>
#include <memory>
#include <string_view>

namespace dtsim::comm {

enum class Protocol { LL, LL128, Simple };
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

/// A protocol's cost for `call`: its latency (launch and steps) and its bandwidth share. NCCL's ring
/// model: 2(p-1) steps for allreduce, p-1 for reduce-scatter and allgather, p for broadcast and reduce, of
/// which 2(n-1), n-1 or n cross nodes; LL keeps 1/4 of the bandwidth (1/3 for allgather, reduce-scatter and
/// broadcast within a node); LL128 keeps 0.92 (0.7 with one rank per node); LL's step latency x1.8 across
/// nodes; Simple's latency x1.9 for an allreduce over several nodes from p/16 x 64 KiB on (the ring's
/// plateau).
[[nodiscard]] ProtocolCosts protocol_costs(Protocol protocol, const CallShape& call);

/// The library's time for `call` with `protocol` when the network alone takes `network_s`: latency plus the
/// network's time over the protocol's bandwidth share.
[[nodiscard]] double library_time(Protocol protocol, const CallShape& call, double network_s);

/// The protocol NCCL would pick: the one whose library_time is shortest (the first of LL, LL128, Simple
/// on a tie).
[[nodiscard]] Protocol chosen_protocol(const CallShape& call, double network_s);

/// An algorithm run as a library runs it: the messages move as the algorithm sends them, then each rank
/// spends what the chosen protocol adds (library_time - network time) as communication. One rank's own
/// network time decides, as each rank's proxy does in the library.
class LibraryCollective final : public CollectiveAlgorithm {
 public:
  /// Told, when given, each call's choice by rank 0 of the transport (`dtsim collective` prints them).
  using ChoiceSink = std::function<void(Protocol)>;

  explicit LibraryCollective(std::unique_ptr<CollectiveAlgorithm> inner, ChoiceSink on_choice = {})
      : inner_(std::move(inner)), on_choice_(std::move(on_choice)) {}

  [[nodiscard]] Operation operation() const override { return inner_->operation(); }
  void run(Transport& transport, Block data) const override;
  [[nodiscard]] core::Seconds predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const override;
  [[nodiscard]] std::string uncontended_on() const override { return inner_->uncontended_on(); }
  [[nodiscard]] bool names_every_rank() const override { return inner_->names_every_rank(); }

 private:
  std::unique_ptr<CollectiveAlgorithm> inner_;
  ChoiceSink on_choice_;
};

/// The machines among `transport`'s ranks (its size when it names none).
[[nodiscard]] int machine_count(const Transport& transport);

}  // namespace dtsim::comm
