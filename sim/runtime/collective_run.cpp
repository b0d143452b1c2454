#include "sim/runtime/collective_run.hpp"

#include "sim/comm/ring_allreduce.hpp"
#include "sim/runtime/engine_session.hpp"
#include "sim/runtime/s4u_transport.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <algorithm>

namespace dtsim::runtime {

CollectiveOutcome simulate_allreduce(const topology::TopologyGraph& graph, scenario::NetworkModel network_model,
                                     const comm::AllreduceAlgorithm& algorithm, std::vector<std::vector<float>> inputs) {
  // Collectives do no computation here, so the device speed does not matter.
  scenario::DeviceProfile device;
  device.name = "collective";
  device.peak_flops = core::FlopsPerSecond(1e12);
  EngineSession session(graph, network_model, device);
  const auto workers = graph.workers();
  const int ranks = static_cast<int>(workers.size());
  std::vector<metrics::HostActivity> activity(workers.size());
  std::vector<double> finished(workers.size(), 0.0);
  CollectiveOutcome outcome;
  outcome.results = std::move(inputs);
  for (int rank = 0; rank < ranks; ++rank) {
    simgrid::s4u::Host* host = session.host(workers[static_cast<std::size_t>(rank)]);
    simgrid::s4u::Actor::create(host->get_name(), host, [&, rank] {
      S4uTransport transport("collective", rank, ranks, activity[static_cast<std::size_t>(rank)]);
      algorithm.run(transport, outcome.results[static_cast<std::size_t>(rank)]);
      finished[static_cast<std::size_t>(rank)] = simgrid::s4u::Engine::get_clock();
    });
  }
  session.run();
  outcome.simulated_s = *std::max_element(finished.begin(), finished.end());
  return outcome;
}

}  // namespace dtsim::runtime
