#include "sim/sync/fragment_schedule.hpp"

#include <stdexcept>

namespace dtsim::sync {

FragmentSchedule::FragmentSchedule(int inner_steps, int fragments, int overlap)
    : inner_steps_(inner_steps), fragments_(fragments), overlap_(overlap) {
  if (inner_steps < 1 || fragments < 1 || fragments > inner_steps || overlap < 0 || overlap >= inner_steps) {
    throw std::invalid_argument("a fragment schedule needs H >= 1, 1 <= P <= H and 0 <= overlap < H");
  }
}

std::int64_t FragmentSchedule::offset(int fragment) const {
  return static_cast<std::int64_t>(fragment) * inner_steps_ / fragments_;
}

bool FragmentSchedule::sends_at(int fragment, std::int64_t iteration) const {
  const std::int64_t since = iteration - offset(fragment);
  return since >= inner_steps_ && since % inner_steps_ == 0;
}

std::int64_t FragmentSchedule::last_send(int fragment, std::int64_t iteration) const {
  const std::int64_t since = iteration - offset(fragment);
  if (since < inner_steps_) return 0;
  return offset(fragment) + since / inner_steps_ * inner_steps_;
}

std::vector<FragmentAction> FragmentSchedule::at(std::int64_t iteration, std::int64_t last) const {
  std::vector<FragmentAction> actions;
  using Kind = FragmentAction::Kind;
  for (int p = 0; p < fragments_; ++p) {
    if (sends_at(p, iteration)) actions.push_back({Kind::send, p});
  }
  for (int p = 0; p < fragments_; ++p) {
    if (iteration - overlap_ >= 1 && sends_at(p, iteration - overlap_)) actions.push_back({Kind::merge, p});
  }
  if (iteration != last) return actions;
  // The exchanges that would have been merged after the end.
  for (int p = 0; p < fragments_; ++p) {
    const std::int64_t sent = last_send(p, last);
    if (sent > 0 && sent > last - overlap_) actions.push_back({Kind::merge, p});
  }
  for (int p = 0; p < fragments_; ++p) {
    if (last_send(p, last) == last) continue;
    actions.push_back({Kind::send, p});
    actions.push_back({Kind::merge, p});
  }
  return actions;
}

std::vector<int> FragmentSchedule::send_order(std::int64_t last) const {
  // As at() sends them, without walking every step: window k holds each fragment's k-th exchange, in fragment
  // order (the offsets ascend with the fragments and stay below H); then those sent once more at the end.
  std::vector<int> order;
  for (std::int64_t window = inner_steps_; window <= last; window += inner_steps_) {
    for (int p = 0; p < fragments_ && window + offset(p) <= last; ++p) order.push_back(p);
  }
  for (int p = 0; p < fragments_; ++p) {
    if (last_send(p, last) != last) order.push_back(p);
  }
  return order;
}

std::pair<std::size_t, std::size_t> FragmentSchedule::range(int fragment, std::size_t count) const {
  const auto parts = static_cast<std::size_t>(fragments_);
  const auto p = static_cast<std::size_t>(fragment);
  return {count * p / parts, count * (p + 1) / parts};
}

}  // namespace dtsim::sync
