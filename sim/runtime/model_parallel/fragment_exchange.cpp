#include "sim/runtime/model_parallel/fragment_exchange.hpp"

#include "sim/comm/values_apart.hpp"
#include "sim/runtime/observe/compute_spans.hpp"
#include "sim/sync/outer_precision.hpp"
#include "sim/sync/outer_step.hpp"

#include <exception>

namespace dtsim::runtime {

FragmentExchange::FragmentExchange(const TrainingContext& context, int rank, const Meter& meter, S4uTransport& group,
                                   std::size_t parameters, int parameter_bytes)
    : context_(context),
      meter_(meter),
      group_(group),
      settings_(*context.setup->sync->streaming()),
      outer_(*context.setup->sync->outer_optimizer()),
      schedule_(settings_.inner_steps, settings_.fragments, settings_.overlap),
      parameters_(parameters),
      bits_(settings_.precision != sync::OuterPrecision::automatic ? sync::precision_bits(settings_.precision)
            : is_timing_only(context.setup->mode)                  ? 8 * parameter_bytes
                                                                   : 32),
      on_the_way_(static_cast<std::size_t>(settings_.fragments)),
      ticket_(static_cast<std::size_t>(settings_.fragments), 0) {
  if (settings_.overlap == 0) return;
  // The stream moves the run's fragments in the order they are sent, each once.
  std::vector<std::size_t> sizes;
  for (const int fragment : schedule_.send_order(context.setup->total_iterations))
    sizes.push_back(wire_elements_of(fragment));
  stream_.emplace(context, rank, context.setup->collectives.allreduce(), std::move(sizes), 1, "outer",
                  std::vector<int>{}, rank);
}

FragmentExchange::~FragmentExchange() {
  // Unwinding (an actor killed), nothing may block; otherwise the stream may still be moving this worker's values.
  if (stream_ && std::uncaught_exceptions() == 0) stream_->wait_for_all(meter_);
}

void FragmentExchange::start_from(std::span<const float> initial) {
  global_.assign(initial.begin(), initial.end());
  if (outer_.momentum != 0.0) velocity_.assign(global_.size(), 0.0F);
}

std::size_t FragmentExchange::wire_elements_of(int fragment) const {
  const auto [begin, end] = schedule_.range(fragment, parameters_);
  return wire_elements_of_bits(static_cast<double>(end - begin), bits_, static_cast<std::size_t>(group_.size()));
}

void FragmentExchange::send(int fragment, std::span<const float> own) {
  const auto [begin, end] = schedule_.range(fragment, parameters_);
  const auto f = static_cast<std::size_t>(fragment);
  if (!own.empty()) {
    std::vector<float>& outer_gradient = on_the_way_[f];
    outer_gradient.resize(end - begin);
    for (std::size_t i = begin; i < end; ++i) outer_gradient[i - begin] = global_[i] - own[i];
    sync::round_to_precision(outer_gradient, settings_.precision);
  }
  charge_compute(meter_, static_cast<double>(end - begin));  // the difference
  if (!stream_) {
    exchange(fragment, group_);
    return;
  }
  if (own.empty()) {
    stream_->hand_over();
  } else {
    stream_->hand_over([this, fragment](S4uTransport& transport) { exchange(fragment, transport); });
  }
  ticket_[f] = stream_->handed();
}

void FragmentExchange::exchange(int fragment, S4uTransport& transport) {
  const comm::CollectiveAlgorithm& allreduce = context_.setup->collectives.allreduce();
  std::vector<float>& values = on_the_way_[static_cast<std::size_t>(fragment)];
  if (values.empty()) {
    allreduce.run(transport, comm::Block::sized(wire_elements_of(fragment)));
  } else if (bits_ == 32) {
    allreduce.run(transport, comm::Block(values));
  } else {
    comm::run_collective_timed_as(allreduce, transport, comm::Block(values), wire_elements_of(fragment));
  }
}

void FragmentExchange::merge(int fragment, std::span<float> own) {
  const auto [begin, end] = schedule_.range(fragment, parameters_);
  const auto count = end - begin;
  if (stream_) stream_->wait_for(ticket_[static_cast<std::size_t>(fragment)], meter_);
  const double mixing = settings_.mixing;
  // The mean, the outer step and, where the worker keeps some of its own, the mixing.
  double flops = static_cast<double>(count) + sync::outer_step_operations(count, outer_) +
                 (mixing > 0.0 ? 3.0 * static_cast<double>(count) : 0.0);
  if (!own.empty()) {
    std::vector<float>& outer_gradient = on_the_way_[static_cast<std::size_t>(fragment)];
    const auto workers = static_cast<float>(group_.size());
    for (float& value : outer_gradient) value /= workers;
    const std::span<float> global = std::span<float>(global_).subspan(begin, count);
    const std::span<float> velocity =
        velocity_.empty() ? std::span<float>() : std::span<float>(velocity_).subspan(begin, count);
    sync::apply_outer_step(global, velocity, outer_gradient, outer_);
    const auto keep = static_cast<float>(mixing);
    for (std::size_t i = 0; i < count; ++i) {
      own[begin + i] = mixing == 0.0 ? global[i] : keep * own[begin + i] + (1.0F - keep) * global[i];
    }
  }
  charge_compute(meter_, flops);
}

}  // namespace dtsim::runtime
