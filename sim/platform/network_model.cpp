#include "sim/platform/network_model.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace dtsim::platform {

void configure_network_model(scenario::NetworkModel model) {
  if (model == scenario::NetworkModel::AlphaBeta) {
    simgrid::s4u::Engine::set_config("network/model:CM02");
    simgrid::s4u::Engine::set_config("network/TCP-gamma:0");
    simgrid::s4u::Engine::set_config("network/crosstraffic:0");
  } else {
    simgrid::s4u::Engine::set_config("network/model:LV08");
  }
}

}  // namespace dtsim::platform
