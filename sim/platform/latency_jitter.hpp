#pragma once
// Seeded jitter on chosen links (`link_conditions[].jitter`): each message that crosses such a link meets an
// extra delay there, drawn per message and link, on top of its route's latency. SimGrid 3.32 cannot change a
// link's latency under messages in flight (its CM02 model then fails), so the delay is given to each message as
// it starts, through the network model's latency factor: the route's latency L times the model's own factor f
// (1 under alpha_beta, LV08's 13.01 under tcp) becomes f L + the message's draws.

#include "sim/core/rng.hpp"
#include "sim/platform/platform_builder.hpp"

#include <simgrid/s4u/Link.hpp>

#include <cstdint>
#include <span>
#include <unordered_map>

namespace dtsim::platform {

/// A run's draws of jitter: one for each jittered link a message crosses, in the order SimGrid starts the
/// messages (deterministic for a scenario), from the stream "links/jitter" of the seed.
class JitterDraws {
 public:
  explicit JitterDraws(std::uint64_t seed);
  /// Messages over `direction` (one direction of a link) meet `jitter`.
  void add(const simgrid::s4u::Link* direction, const PlatformSpec::LinkJitter& jitter);
  /// The extra delay of the next message over `route`: the sum of a draw for each jittered link on it, in order.
  double delay(std::span<simgrid::s4u::Link* const> route);
  /// One draw of `jitter`'s extra delay.
  double draw(const PlatformSpec::LinkJitter& jitter);

 private:
  core::RandomEngine engine_;
  std::unordered_map<const simgrid::s4u::Link*, PlatformSpec::LinkJitter> jittered_;
};

/// Gives every message from now on the jitter of `spec.link_jitters` on `platform`'s links (nothing without any).
/// Call once, after the platform is built.
void install_latency_jitter(const Platform& platform, const PlatformSpec& spec);

}  // namespace dtsim::platform
