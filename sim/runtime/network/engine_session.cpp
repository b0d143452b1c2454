#include "sim/runtime/network/engine_session.hpp"

#include "sim/platform/network_model.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/version.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Host.hpp>

#include <fmt/format.h>

#include <array>
#include <csignal>
#include <stdexcept>
#include <vector>

#include <malloc.h>

namespace dtsim::runtime {
namespace {
/// Blocks this large or larger come from mmap: an actor's stack (SimGrid's default, 8 MiB) does.
constexpr int kStackMmapThreshold = 1 << 20;
/// Room for every actor's stack and more: the host limit allows a few actors a worker.
constexpr int kMostMmappedBlocks = 1 << 24;
}  // namespace

EngineSession::EngineSession(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                             const platform::PlatformSpec& spec) {
  // SimGrid's informational messages (configuration changes) would drown dtsim's own output.
  // A guard page under every actor's stack splits its memory mapping in two, and Linux allows 65,530 mappings
  // per process by default (vm.max_map_count): some 32,000 actors. Large clusters run without guard pages, so
  // that the stacks' mappings merge; an actor's stack (8 MiB) is far deeper than dtsim's actors need.
  const bool many_actors = graph.node_count() > kGuardedHostLimit;
  std::array<char*, 4> argv{const_cast<char*>("dtsim"), const_cast<char*>("--log=root.thresh:warning"),
                            const_cast<char*>("--cfg=contexts/guard-size:0"), nullptr};
  int argc = many_actors ? 3 : 2;
  // Without a guard page SimGrid takes each stack from calloc, and glibc's dynamic mmap threshold soon serves
  // such blocks from the heap, clearing the pages the heap's top held (some 128 KiB a stack): at 16,384 hosts
  // that was 2.4 GB of 150 KiB an actor where the actors use a few pages. Served by mmap, a stack is fresh
  // zero pages, touched only as deep as the actor goes, and neighbouring stacks still merge into one mapping.
  // glibc serves at most 65,536 blocks by mmap at once (M_MMAP_MAX) and then falls back to the heap: 65,536
  // workers run 131,072 actors.
  if (many_actors) {
    ::mallopt(M_MMAP_THRESHOLD, kStackMmapThreshold);
    ::mallopt(M_MMAP_MAX, kMostMmappedBlocks);
  }
  // SimGrid's engine installs a SIGINT handler that exits with status 1; the program's own handling of
  // SIGINT (dtsim's: stop with 130) stays in force.
  struct sigaction on_interrupt {};
  ::sigaction(SIGINT, nullptr, &on_interrupt);
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
  ::sigaction(SIGINT, &on_interrupt, nullptr);
  platform::configure_network_model(network_model);
  if (spec.energy) {
    sg_host_energy_plugin_init();
    if (spec.link_power) sg_link_energy_plugin_init();
  }
  platform_ = platform::build_platform(graph, spec);
  watch_for_deadlock();
}

double EngineSession::run() {
  engine_->run();
  if (!deadlock_->empty()) throw std::logic_error(*deadlock_);
  return simgrid::s4u::Engine::get_clock();
}

void EngineSession::watch_for_deadlock() {
  // SimGrid ends a deadlock (every actor left waits for what none will send) by killing the actors and returning
  // as from a finished run; its results would be a truncated run's, so it is a bug, not an outcome. The signal
  // outlives the session: the callback holds the message, not the session.
  simgrid::s4u::Engine::on_deadlock_cb([deadlock = deadlock_] {
    const std::vector<simgrid::s4u::ActorPtr> actors = simgrid::s4u::Engine::get_instance()->get_all_actors();
    *deadlock = fmt::format("the simulation deadlocked at {} s: {} actors still wait",
                            simgrid::s4u::Engine::get_clock(), actors.size());
    if (!actors.empty()) {
      *deadlock +=
          fmt::format(", the first '{}' on '{}'", actors.front()->get_name(), actors.front()->get_host()->get_name());
    }
  });
}

std::string simgrid_version() {
  int major = 0;
  int minor = 0;
  int patch = 0;
  sg_version_get(&major, &minor, &patch);
  return fmt::format("{}.{}.{}", major, minor, patch);
}

}  // namespace dtsim::runtime
