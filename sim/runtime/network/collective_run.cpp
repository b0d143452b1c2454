#include "sim/runtime/network/collective_run.hpp"

#include "sim/runtime/network/engine_session.hpp"
#include "sim/runtime/network/network_backend.hpp"
#include "sim/runtime/network/phase_shortcut.hpp"
#include "sim/runtime/network/s4u_transport.hpp"
#include "sim/topology/link_traffic.hpp"

#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <optional>

namespace dtsim::runtime {
namespace {

/// Collectives do no computation here, so the hosts' speed does not matter.
constexpr double kIdleSpeed = 1e12;

}  // namespace

CollectiveOutcome simulate_collective(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                                      const comm::CollectiveAlgorithm& algorithm, std::vector<std::vector<float>> inputs) {
  EngineSession session(graph, network_model, platform::uniform_platform(kIdleSpeed));
  const auto workers = graph.workers();
  const int ranks = static_cast<int>(workers.size());
  RunObserver unobserved;  // only the collective's duration is wanted
  std::vector<double> finished(workers.size(), 0.0);
  CollectiveOutcome outcome;
  outcome.results = std::move(inputs);
  const std::unique_ptr<AnalyticalNetwork> analytical = network_backend(network_model).make_network(graph, session.routes());
  // Not counted: it gives the transports their routes' latencies (a library's model needs them).
  const topology::LinkTraffic routes(graph, session.routes());
  for (int rank = 0; rank < ranks; ++rank) {
    simgrid::s4u::Host* host = session.host(workers[static_cast<std::size_t>(rank)]);
    simgrid::s4u::Actor::create(host->get_name(), host, [&, rank] {
      S4uTransport transport({.routes = &routes, .analytical = analytical.get()},
                             {.name = "collective", .rank = rank, .size = ranks, .machines = graph.worker_machines()},
                             Meter(unobserved, Lane{rank}));
      algorithm.run(transport, outcome.results[static_cast<std::size_t>(rank)]);
      finished[static_cast<std::size_t>(rank)] = simgrid::s4u::Engine::get_clock();
    });
  }
  session.run();
  outcome.simulated_s = *std::max_element(finished.begin(), finished.end());
  return outcome;
}

std::vector<double> time_collective_cases(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                                          const std::vector<CollectiveCase>& cases) {
  EngineSession session(graph, network_model, platform::uniform_platform(kIdleSpeed));
  const auto workers = graph.workers();
  const int ranks = static_cast<int>(workers.size());
  const PhaseShortcut shortcut(graph, session.routes(), std::vector<topology::NodeId>(workers.begin(), workers.end()),
                               network_model == scenario::NetworkModel::Tcp);
  RunObserver unobserved;
  std::vector<double> started(cases.size(), 0.0);
  std::vector<double> finished(cases.size(), 0.0);
  const simgrid::s4u::BarrierPtr barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(ranks));
  const std::unique_ptr<AnalyticalNetwork> analytical = network_backend(network_model).make_network(graph, session.routes());
  const topology::LinkTraffic routes(graph, session.routes());  // for the routes' latencies, as above
  for (int rank = 0; rank < ranks; ++rank) {
    simgrid::s4u::Host* host = session.host(workers[static_cast<std::size_t>(rank)]);
    simgrid::s4u::Actor::create(host->get_name(), host, [&, rank] {
      for (std::size_t index = 0; index < cases.size(); ++index) {
        // Mailbox names differ per case, so a late message of one case can never match the next.
        S4uTransport transport({.routes = &routes, .analytical = analytical.get()},
                               {.name = fmt::format("collective-{}", index),
                                .rank = rank,
                                .size = ranks,
                                .machines = graph.worker_machines(),
                                .shortcut = cases[index].phase_shortcut ? &shortcut : nullptr},
                               Meter(unobserved, Lane{rank}));
        barrier->wait();
        started[index] = simgrid::s4u::Engine::get_clock();
        cases[index].algorithm->run(transport, comm::Block::sized(cases[index].elements));
        finished[index] = std::max(finished[index], simgrid::s4u::Engine::get_clock());
      }
    });
  }
  session.run();
  std::vector<double> durations;
  durations.reserve(cases.size());
  for (std::size_t index = 0; index < cases.size(); ++index) durations.push_back(finished[index] - started[index]);
  return durations;
}

}  // namespace dtsim::runtime
