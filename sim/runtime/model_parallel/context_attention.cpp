#include "sim/runtime/model_parallel/context_attention.hpp"

#include "sim/runtime/observe/compute_spans.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>

#include <memory>

namespace dtsim::runtime {
ContextAttention::ContextAttention(const TrainingContext& context, S4uTransport& group, const Meter& meter,
                                   const Meter& lane)
    : context_(context), group_(group), meter_(meter), lane_(lane) {}

void ContextAttention::forward(double flops, std::size_t block, double factor) {
  if (context_.scenario->training.parallelism.context_attention == scenario::ContextAttention::AllGather) {
    context_.setup->collectives.allgather().run(group_, comm::Block::sized(block * static_cast<std::size_t>(group_.size())));
    charge_compute(meter_, flops * factor);
    return;
  }
  ring(flops, block, factor);
}

void ContextAttention::backward(double flops, std::size_t block, double factor) {
  if (context_.scenario->training.parallelism.context_attention == scenario::ContextAttention::AllGather) {
    charge_compute(meter_, flops * factor);
    context_.setup->collectives.reduce_scatter().run(group_,
                                                     comm::Block::sized(block * static_cast<std::size_t>(group_.size())));
    return;
  }
  ring(flops, 2 * block, factor);
}

void ContextAttention::ring(double flops, std::size_t elements, double factor) {
  const int c = group_.size();
  const int next = (group_.rank() + 1) % c;
  const int previous = (group_.rank() + c - 1) % c;
  const Meter own = group_.meter();
  for (int step = 0; step < c; ++step) {
    const simgrid::s4u::ExecPtr block = start_compute(meter_, flops / c * factor);
    double moved = simgrid::s4u::Engine::get_clock();
    if (step + 1 < c) {
      // The next block travels beside this one's compute, its time on the ring's own lane.
      group_.report_to(lane_);
      if (group_.mirrored()) {
        // Standing for its group and others of its kind: every rank's block to the next, one phase a group.
        group_.shift_rounds(next, previous, elements, 1);
      } else {
        static_cast<void>(group_.send_recv(next, comm::Buffer::sized(elements), previous));
      }
      group_.report_to(own);
      moved = simgrid::s4u::Engine::get_clock();
    }
    block->wait();
    const double computed = block->get_finish_time();
    meter_.account_until(computed);
    if (moved > computed) {
      // The next block is late: the device waits for it, the ring's exposed time.
      const Span exposed{computed, moved};
      const Meter context = meter_.carrying(Traffic::Context);
      context.observer().on_communication(context.lane(), exposed, std::span<const Span>(&exposed, 1));
    }
  }
}

}  // namespace dtsim::runtime
