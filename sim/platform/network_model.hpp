#pragma once
// SimGrid network-model settings. Must be applied after the engine exists and before the platform is built.

#include "sim/scenario/scenario.hpp"

namespace dtsim::platform {

/// alpha_beta: CM02 with TCP-gamma 0 and no cross-traffic, so an uncontended message of n bytes over a
/// route of latency L and bottleneck bandwidth B takes exactly L + n/B. tcp: SimGrid's calibrated
/// default (LV08: latency x13.01, bandwidth x0.97, TCP window bound, cross-traffic).
void configure_network_model(scenario::NetworkModel model);

}  // namespace dtsim::platform
