#include "sim/platform/latency_jitter.hpp"

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

#include <memory>
#include <stdexcept>

namespace dtsim::platform {

JitterDraws::JitterDraws(std::uint64_t seed) : engine_(core::random_stream(seed, "links/jitter")) {}

void JitterDraws::add(const simgrid::s4u::Link* direction, const PlatformSpec::LinkJitter& jitter) {
  jittered_[direction] = jitter;
}

double JitterDraws::draw(const PlatformSpec::LinkJitter& jitter) {
  switch (jitter.distribution) {
    case scenario::JitterDistribution::Exponential:
      return core::exponential(engine_, jitter.mean_s);
    case scenario::JitterDistribution::Uniform:
      return 2.0 * jitter.mean_s * core::uniform01(engine_);
  }
  throw std::logic_error("unknown jitter distribution");
}

double JitterDraws::delay(std::span<simgrid::s4u::Link* const> route) {
  double extra = 0.0;
  for (const simgrid::s4u::Link* link : route) {
    const auto found = jittered_.find(link);
    if (found != jittered_.end()) extra += draw(found->second);
  }
  return extra;
}

void install_latency_jitter(const Platform& platform, const PlatformSpec& spec) {
  if (spec.link_jitters.empty()) return;
  auto draws = std::make_shared<JitterDraws>(spec.jitter_seed);
  for (const PlatformSpec::LinkJitter& jitter : spec.link_jitters) {
    const simgrid::s4u::SplitDuplexLink* link = platform.links.at(jitter.link);
    draws->add(link->get_link_up(), jitter);
    draws->add(link->get_link_down(), jitter);
  }
  // The model's own factor, which the callback replaces: 1 for CM02, 13.01 for LV08 (network_model.cpp).
  const double model_factor = simgrid::config::get_value<double>("network/latency-factor");
  simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model()->set_lat_factor_cb(
      [draws, model_factor](double, const simgrid::s4u::Host*, const simgrid::s4u::Host*,
                            const std::vector<simgrid::s4u::Link*>& route,
                            const std::unordered_set<simgrid::s4u::NetZone*>&) {
        double latency = 0.0;
        for (const simgrid::s4u::Link* link : route) latency += link->get_latency();
        const double extra = draws->delay(route);
        // The checks refuse jitter on a link without latency, so a jittered route has some.
        return latency > 0.0 ? model_factor + extra / latency : model_factor;
      });
}

}  // namespace dtsim::platform
