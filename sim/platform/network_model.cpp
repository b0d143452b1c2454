#include "sim/platform/network_model.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace dtsim::platform {

void configure_network_model(scenario::NetworkModel model) {
  // The analytical and closed-form models time timing-only collectives themselves; every other message is
  // SimGrid's, as with alpha_beta.
  if (model != scenario::NetworkModel::Tcp) {
    simgrid::s4u::Engine::set_config("network/model:CM02");
    // No TCP window bound (gamma / 2 latency) on any flow; a gamma of 0 would also drop the rate caps of
    // background flows, so an unreachable window instead.
    simgrid::s4u::Engine::set_config("network/TCP-gamma:1e30");
    simgrid::s4u::Engine::set_config("network/crosstraffic:0");
  } else {
    simgrid::s4u::Engine::set_config("network/model:LV08");
  }
}

}  // namespace dtsim::platform
