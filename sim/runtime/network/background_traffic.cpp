#include "sim/runtime/network/background_traffic.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <string>

namespace dtsim::runtime {
namespace {

/// Longer than any simulated run: the flow is still going when the job ends and its actors are stopped.
constexpr double kEndless_s = 1e7;

}  // namespace

void start_background_traffic(const platform::Platform& platform) {
  for (std::size_t i = 0; i < platform.background.size(); ++i) {
    const platform::BackgroundFlow flow = platform.background[i];
    simgrid::s4u::Mailbox* mailbox = simgrid::s4u::Mailbox::by_name("background/" + std::to_string(i));
    // A mailbox transfer, whose rate SimGrid caps (a host-to-host one would take a fair share instead).
    simgrid::s4u::Actor::create(flow.from->get_name() + "/send", flow.from, [flow, mailbox] {
      static int nothing = 0;
      mailbox->put_init(&nothing, static_cast<std::uint64_t>(flow.bytes_per_s * kEndless_s))
          ->set_rate(flow.bytes_per_s)
          ->wait();
    })->daemonize();
    simgrid::s4u::Actor::create(flow.to->get_name() + "/receive", flow.to, [mailbox] {
      static_cast<void>(mailbox->get<int>());
    })->daemonize();
  }
}

}  // namespace dtsim::runtime
