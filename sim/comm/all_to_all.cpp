#include "sim/comm/all_to_all.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace dtsim::comm {
namespace {

/// Piece `index` of a block cut into pieces of `piece` elements.
Block piece_of(const Block& data, std::size_t piece, int index) {
  const std::size_t begin = static_cast<std::size_t>(index) * piece;
  return data.part(begin, begin + piece);
}

/// Several pieces of `data` in one message, in the order of `indices`.
Buffer pieces_of(const Block& data, std::size_t piece, std::span<const int> indices) {
  if (!data.has_values()) return Buffer::sized(piece * indices.size());
  std::vector<float> out;
  out.reserve(piece * indices.size());
  for (const int index : indices) {
    const std::span<const float> values = piece_of(data, piece, index).values();
    out.insert(out.end(), values.begin(), values.end());
  }
  return Buffer(std::move(out));
}

/// The `index`-th piece of a message of several pieces.
Buffer piece_in(const Buffer& message, std::size_t piece, std::size_t index) {
  const std::span<const float> values = message.values().subspan(index * piece, piece);
  return Buffer(std::vector<float>(values.begin(), values.end()));
}

/// The payload bytes of one piece of `size` bytes over `ranks`: whole 4-byte elements.
core::Bytes piece_bytes(int ranks, core::Bytes size) {
  const auto elements = static_cast<std::size_t>(size.value() / 4.0);
  return core::Bytes(4.0 * static_cast<double>(all_to_all_piece(elements, ranks)));
}

/// The pieces of `pieces` in one message, in order.
Buffer joined(const std::vector<Buffer>& pieces) {
  std::vector<float> out;
  for (const Buffer& piece : pieces) out.insert(out.end(), piece.values().begin(), piece.values().end());
  return Buffer(std::move(out));
}

/// Every rank's piece j of rank i swapped with rank j's piece i: what either algorithm leaves.
void all_to_all_values(std::span<const std::span<float>> blocks) {
  const auto p = static_cast<int>(blocks.size());
  const std::size_t piece = all_to_all_piece(blocks.front().size(), p);
  if (p == 1 || piece == 0) return;
  for (int i = 0; i < p; ++i) {
    for (int j = i + 1; j < p; ++j) {
      const auto at = [&](int rank, int index) {
        return blocks[static_cast<std::size_t>(rank)].begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(index) * piece);
      };
      std::swap_ranges(at(i, j), at(i, j) + static_cast<std::ptrdiff_t>(piece), at(j, i));
    }
  }
}

std::vector<int> all_but(std::span<const int> ranks, int excluded) {
  std::vector<int> out;
  for (const int r : ranks) {
    if (r != excluded) out.push_back(r);
  }
  return out;
}

}  // namespace

std::size_t all_to_all_piece(std::size_t elements, int ranks) { return elements / static_cast<std::size_t>(ranks); }

void DirectAllToAll::run(Transport& transport, Block data) const {
  const int p = transport.size();
  const std::size_t piece = all_to_all_piece(data.size(), p);
  if (p == 1 || piece == 0) return;
  const std::vector<int> others = others_than(transport.rank(), p);
  if (!data.has_values()) {
    const Step step{others, others, piece};
    transport.run_steps(std::span<const Step>(&step, 1));
    return;
  }
  std::vector<Buffer> outgoing;
  outgoing.reserve(others.size());
  for (const int r : others) outgoing.push_back(piece_of(data, piece, r).copy());
  const std::vector<Buffer> received = transport.exchange(others, std::move(outgoing), others);
  for (std::size_t i = 0; i < others.size(); ++i) piece_of(data, piece, others[i]).assign(received[i]);
}

void DirectAllToAll::values_in_memory(const GroupBlocks& group) const { all_to_all_values(group.blocks); }

void direct_all_to_all_v(Transport& transport, std::span<const std::size_t> to_each) {
  const int p = transport.size();
  if (std::cmp_not_equal(to_each.size(), p)) throw std::invalid_argument("an all-to-all's pieces: one for every rank");
  if (p == 1) return;
  Step step{others_than(transport.rank(), p), others_than(transport.rank(), p), 0, {}};
  for (const int r : step.to) step.sizes.push_back(to_each[static_cast<std::size_t>(r)]);
  transport.run_steps(std::span<const Step>(&step, 1));
}

std::vector<Buffer> direct_all_to_all_values(Transport& transport, std::vector<Buffer> pieces) {
  const int p = transport.size();
  if (std::cmp_not_equal(pieces.size(), p)) throw std::invalid_argument("an all-to-all's pieces: one for every rank");
  const int rank = transport.rank();
  std::vector<Buffer> out(pieces.size());
  out[static_cast<std::size_t>(rank)] = std::move(pieces[static_cast<std::size_t>(rank)]);
  if (p == 1) return out;
  const std::vector<int> others = others_than(rank, p);
  std::vector<Buffer> outgoing;
  outgoing.reserve(others.size());
  for (const int r : others) outgoing.push_back(std::move(pieces[static_cast<std::size_t>(r)]));
  std::vector<Buffer> received = transport.exchange(others, std::move(outgoing), others);
  for (std::size_t i = 0; i < others.size(); ++i) out[static_cast<std::size_t>(others[i])] = std::move(received[i]);
  return out;
}

core::Seconds DirectAllToAll::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  if (ranks <= 1) return core::Seconds(0.0);
  return cost.alpha + piece_bytes(ranks, size) / cost.bandwidth;
}

void HierarchicalAllToAll::run(Transport& transport, Block data) const {
  const int p = transport.size();
  const std::size_t piece = all_to_all_piece(data.size(), p);
  if (p == 1 || piece == 0) return;
  const MachineLayout& layout = *layouts_.of(transport, "hierarchical all-to-all");
  const auto machine_of = [&](int r) { return static_cast<std::size_t>(layout.machine_of[static_cast<std::size_t>(r)]); };
  // The ranks of r's machine, and the ranks of r's local index machine by machine.
  const auto machine_ranks = [&](int r) -> const std::vector<int>& { return *layout.machine_ranks[machine_of(r)]; };
  const auto index_ranks = [&](int r) -> const std::vector<int>& {
    return *layout.peers[static_cast<std::size_t>(layout.local_index[static_cast<std::size_t>(r)])];
  };
  const int rank = transport.rank();
  const std::vector<int>& machine = machine_ranks(rank);
  const std::vector<int> locals = all_but(machine, rank);
  const std::vector<int> remotes = all_but(index_ranks(rank), rank);
  const std::size_t k = machine.size();
  const std::size_t machines = layout.machine_ranks.size();
  if (!data.has_values()) {
    const std::vector<Step> steps{{locals, locals, machines * piece}, {remotes, remotes, k * piece}};
    transport.run_steps(steps);
    return;
  }
  // Inside the machine: local rank l gets the pieces bound for the ranks of l's local index.
  std::vector<Buffer> outgoing;
  for (const int l : locals) outgoing.push_back(pieces_of(data, piece, index_ranks(l)));
  const std::vector<Buffer> from_locals = transport.exchange(locals, std::move(outgoing), locals);
  // gathered[m][j]: what the j-th rank of this machine holds for the rank of this local index on machine m.
  std::vector<std::vector<Buffer>> gathered(machines, std::vector<Buffer>(k));
  for (std::size_t j = 0, received = 0; j < k; ++j) {
    for (std::size_t m = 0; m < machines; ++m) {
      gathered[m][j] = machine[j] == rank ? piece_of(data, piece, index_ranks(rank)[m]).copy()
                                          : piece_in(from_locals[received], piece, m);
    }
    if (machine[j] != rank) ++received;
  }
  // Across machines: the rank of this local index on each other machine gets the k pieces gathered for it.
  outgoing.clear();
  for (const int r : remotes) outgoing.push_back(joined(gathered[machine_of(r)]));
  const std::vector<Buffer> from_remotes = transport.exchange(remotes, std::move(outgoing), remotes);
  // Every piece placed by its sender: this machine's from the first exchange, the others' from the second.
  for (std::size_t j = 0; j < k; ++j) piece_of(data, piece, machine[j]).assign(gathered[machine_of(rank)][j]);
  for (std::size_t i = 0; i < remotes.size(); ++i) {
    const std::vector<int>& senders = machine_ranks(remotes[i]);
    for (std::size_t j = 0; j < k; ++j) piece_of(data, piece, senders[j]).assign(piece_in(from_remotes[i], piece, j));
  }
}

void HierarchicalAllToAll::values_in_memory(const GroupBlocks& group) const {
  // Refuses an uneven placement as run() does.
  static_cast<void>(layouts_.of(group.machines, static_cast<int>(group.blocks.size()), "hierarchical all-to-all"));
  all_to_all_values(group.blocks);
}

core::Seconds HierarchicalAllToAll::predicted_time(int ranks, core::Bytes size, const AlphaBeta& cost) const {
  return hierarchical_all_to_all_time(1, ranks, size, cost, cost);
}

core::Seconds hierarchical_all_to_all_time(int per_machine, int machines, core::Bytes size, const AlphaBeta& intra,
                                           const AlphaBeta& inter) {
  const core::Bytes piece = piece_bytes(per_machine * machines, size);
  core::Seconds out(0.0);
  if (per_machine > 1) out = out + intra.alpha + piece * static_cast<double>(machines) / intra.bandwidth;
  if (machines > 1) out = out + inter.alpha + piece * static_cast<double>(per_machine) / inter.bandwidth;
  return out;
}

}  // namespace dtsim::comm
