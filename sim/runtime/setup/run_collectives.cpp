#include "sim/runtime/setup/run_collectives.hpp"

#include "sim/comm/values_apart.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dtsim::runtime {

void RunCollectives::add(comm::Operation operation, std::unique_ptr<comm::CollectiveAlgorithm> algorithm) {
  if (algorithm == nullptr) throw std::logic_error("a run's collective without an algorithm");
  // Calls on real values compute them apart from their messages where the transport has a meeting for them.
  algorithms_[operation] = std::make_unique<comm::ValuesApart>(std::move(algorithm));
}

const comm::CollectiveAlgorithm& RunCollectives::of(comm::Operation operation) const {
  const auto found = algorithms_.find(operation);
  if (found == algorithms_.end()) {
    throw std::logic_error("this run has no " + std::string(comm::to_string(operation)) + " (its checks should refuse it)");
  }
  return *found->second;
}

bool RunCollectives::name_every_rank() const {
  return std::all_of(algorithms_.begin(), algorithms_.end(), [](const auto& entry) {
    return entry.first == comm::Operation::all_to_all || entry.second->names_every_rank();
  });
}

}  // namespace dtsim::runtime
