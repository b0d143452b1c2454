#include "sim/runtime/network/s4u_transport.hpp"

#include "sim/runtime/network/analytical_messages.hpp"
#include "sim/runtime/network/simgrid_messages.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace dtsim::runtime {
namespace s4u = simgrid::s4u;
namespace {

constexpr int kMaxTag = 65535;

}  // namespace

S4uTransport::S4uTransport(const RunNetwork& network, GroupSpec group, Meter meter)
    : group_(network.prefix + group.name),
      rank_(group.rank),
      size_(group.size),
      meter_(std::move(meter)),
      shortcut_(group.shortcut),
      machines_(group.machines),
      traffic_(network.traffic),
      routes_(network.traffic != nullptr ? network.traffic : network.routes),
      hosts_(group.hosts),
      mirrored_(group.mirrored),
      meeting_(std::move(group.meeting)),
      timing_(network.analytical != nullptr
                  ? std::unique_ptr<MessageTiming>(std::make_unique<AnalyticalMessages>(*this, *network.analytical))
                  : std::make_unique<SimGridMessages>(*this)) {
  if (network.values != nullptr && !mirrored_ && size_ > 1) value_meeting_ = &network.values->of(group_, size_);
}

S4uTransport::~S4uTransport() = default;

void S4uTransport::check_peer(int peer, int tag) const {
  if (peer < 0 || peer >= size_) throw std::out_of_range(fmt::format("rank {} of {}", peer, size_));
  if (tag < 0 || tag > kMaxTag) throw std::out_of_range(fmt::format("channel {} outside 0..{}", tag, kMaxTag));
}

std::string S4uTransport::channel(int from, int to, int tag) const {
  return tag == 0 ? fmt::format("{}/{}->{}", group_, from, to) : fmt::format("{}/{}->{}#{}", group_, from, to, tag);
}

double S4uTransport::now() const { return s4u::Engine::get_clock(); }

void S4uTransport::spend(double seconds) {
  if (seconds <= 0.0) return;
  const double start = s4u::Engine::get_clock();
  s4u::this_actor::sleep_for(seconds);
  const double end = s4u::Engine::get_clock();
  const double since = std::max(start, meter_.accounted_until());
  if (end <= since) return;
  const Span spent{since, end};
  meter_.observer().on_communication(meter_.lane(), spent, std::span<const Span>(&spent, 1));
  meter_.account_until(end);
}

}  // namespace dtsim::runtime
