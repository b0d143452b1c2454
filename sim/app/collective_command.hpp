#pragma once
// `dtsim collective`: the simulated counterpart of nccl-tests. Times a collective over a range of sizes
// on a topology and prints, per size and algorithm, the simulated time, algorithm and bus bandwidth,
// and the algorithm's closed-form time.

#include "sim/checks/registries.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace dtsim::app {

struct CollectiveOptions {
  std::string operation = "allreduce";
  std::string algorithm = "all";          ///< a registered name, or "all"
  std::optional<int> ranks;               ///< default: the scenario's workers, else 8
  std::string sizes = "1KiB:64MiB";       ///< FROM:TO[:FACTOR], sizes multiplied by FACTOR (default 2)
  std::optional<std::filesystem::path> scenario;  ///< take topology and network model from this file
  std::string topology = "ring";
  bool unidirectional = false;            ///< ring: one-way links
  std::string bandwidth = "10Gbps";
  std::string latency = "5us";
  int arity = 2;
  int k = 4;  ///< ports per switch of a k_ary_fat_tree
  double oversubscription = 1.0;
  int degree = 0;
  std::string dimensions;                 ///< torus: "4x4" or "4x4x2"
  /// With a scenario whose sweep has several points: the one to take (as `dtsim explain` names them).
  std::optional<std::string> point;
  /// Unset: the scenario's, else alpha_beta.
  std::optional<std::string> network_model;
  /// The topology options given on the command line (--topology, --bandwidth, ...), refused with a scenario,
  /// which gives the topology.
  std::vector<std::string> topology_options_given;
  bool phase_shortcut = true;             ///< false: simulate every round of ring phases (same times, slower)
  int repeat = 1;                         ///< times each case is run, one after the other; rows give the mean
  /// none or nccl (training.communication_library); unset: the scenario's, else none.
  std::optional<std::string> library;
  bool json = false;
};

/// The report as text (a table) or JSON. Throws core::InputError for bad options.
std::string collective_command(const CollectiveOptions& options, const checks::Registries& registries);

}  // namespace dtsim::app
