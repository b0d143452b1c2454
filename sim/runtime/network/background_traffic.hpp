#pragma once
// Starts the platform's background flows: one daemon actor each, sending without end at its rate, so that
// the flow shares its link with the job's messages (SimGrid's max-min sharing, the flow capped at its rate)
// until training ends.

#include "sim/platform/platform_builder.hpp"

namespace dtsim::runtime {

void start_background_traffic(const platform::Platform& platform);

}  // namespace dtsim::runtime
