#pragma once
// Context parallelism's attention (Megatron-LM's context parallelism, Liu et al.'s ring attention): each device
// of a context group holds 1/c of every sequence's tokens (two chunks, so that causal attention's work is even)
// and computes the attention of its own queries against every key. The keys and values come to it one of two
// ways:
// - ring: the group's blocks of keys and values travel around the ring, c - 1 transfers, each beside the
//   blockwise attention of the block already there (the first beside the device's own block); the backward
//   pass sends the blocks around again with their gradients (twice the bytes). A transfer longer than the
//   block computed beside it is exposed: the device waits for it.
// - all_gather: the group allgathers the keys and values before the attention (as Llama 3 trained its long
//   context), and reduce-scatters their gradients after its backward pass, neither beside compute.

#include "sim/runtime/context/training_context.hpp"
#include "sim/runtime/network/s4u_transport.hpp"

#include <cstddef>

namespace dtsim::runtime {

class ContextAttention {
 public:
  /// The context group `group` (its time reported to `lane` while it moves beside compute), this device's
  /// compute and exposed waits reported to `meter`. All must outlive it.
  ContextAttention(const TrainingContext& context, S4uTransport& group, const Meter& meter, const Meter& lane);

  /// One attention layer's forward pass: `flops` of attention over this device's queries (charged with
  /// `factor`, the host's slowdown), `block` the elements of this device's keys and values on the wire.
  void forward(double flops, std::size_t block, double factor);
  /// Its backward pass: `flops` of attention gradients; the keys' and values' gradients travel with them.
  void backward(double flops, std::size_t block, double factor);

 private:
  /// c blocks of `flops` / c, each beside the transfer of the next block of `elements`.
  void ring(double flops, std::size_t elements, double factor);

  const TrainingContext& context_;
  S4uTransport& group_;
  const Meter& meter_;
  const Meter& lane_;
};

}  // namespace dtsim::runtime
