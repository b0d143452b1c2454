#pragma once
// Built-in node types that `cluster.nodes[].type` can name without declaring them: the DGX systems.

#include "sim/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dtsim::scenario {

struct CatalogNode {
  std::string name;
  int devices = 8;
  std::string device;  ///< a built-in device name
  IntraNode intra = IntraNode::Switch;
  LinkSpec intra_link;  ///< each NVLink connection (per direction)
  int nics = 0;         ///< network adapters for the compute fabric
  core::BytesPerSecond nic_bandwidth;
  std::string description;  ///< what the numbers describe, and their source
  bool nvls = false;        ///< the switch reduces (NVLink SHARP): NCCL's NVLS allreduce runs on it
};

const std::vector<CatalogNode>& builtin_nodes();
std::optional<CatalogNode> find_builtin_node(const std::string& name);
std::vector<std::string> builtin_node_names();

std::string_view to_string(IntraNode intra);

}  // namespace dtsim::scenario
