#include "sim/scenario/node_catalog.hpp"

#include <algorithm>

namespace dtsim::scenario {
namespace {

// NVLink's latency is on no data sheet: 1 us stands for a few hundred nanoseconds of link latency plus the
// software cost of a transfer. Declare a node type of your own for measured figures.
constexpr double kNvlinkLatency = 1e-6;

CatalogNode node(std::string name, std::string device, IntraNode intra, double link_bytes_per_s, int nics,
                 double nic_bits_per_s, std::string description, bool nvls = false, int devices = 8) {
  return CatalogNode{std::move(name),
                     intra == IntraNode::Switch && device == "v100" ? 16 : devices,
                     std::move(device),
                     intra,
                     {core::BytesPerSecond(link_bytes_per_s), core::Seconds(kNvlinkLatency)},
                     nics,
                     core::BytesPerSecond(nic_bits_per_s / 8.0),
                     std::move(description),
                     nvls};
}

}  // namespace

const std::vector<CatalogNode>& builtin_nodes() {
  static const std::vector<CatalogNode> nodes{
      // NVIDIA DGX-1 with Tesla V100 system architecture white paper: 8 V100 SXM2 in a hybrid cube-mesh of
      // NVLink 2.0, each GPU with 6 links of 25 GB/s per direction to 4 neighbours (two of them by two links;
      // the builder doubles those), 4 EDR InfiniBand adapters of 100 Gb/s. No published achievable rates
      // found for NVLink 2.0 or EDR: line rates (here and for the DGX-2).
      node("dgx1", "v100", IntraNode::CubeMesh, 25e9, 4, 100e9,
           "NVIDIA DGX-1 (V100): 8 GPUs, NVLink 2.0 hybrid cube-mesh, 4 x 100 Gb/s InfiniBand EDR"),
      // NVIDIA DGX-2 data sheet: 16 V100 SXM3 32 GB, 12 NVSwitches, each GPU 6 NVLink 2.0 links of 25 GB/s
      // per direction into the switches (2.4 TB/s bisection), 8 EDR InfiniBand adapters of 100 Gb/s.
      node("dgx2", "v100", IntraNode::Switch, 150e9, 8, 100e9,
           "NVIDIA DGX-2: 16 V100 GPUs, NVSwitch (150 GB/s per GPU per direction), 8 x 100 Gb/s InfiniBand EDR"),
      // NVIDIA DGX A100 data sheet: 8 A100 80 GB, 6 NVSwitches, 600 GB/s of NVLink 3.0 per GPU (300 GB/s
      // per direction), 8 single-port ConnectX-6 200 Gb/s HDR InfiniBand adapters for the compute fabric.
      // Achievable rather than line rates: NCCL's own model caps an A100's NVLink bus bandwidth at 235 GB/s
      // (src/graph/tuning.cc, compute capability 8.0); HDR InfiniBand reached 96 GB/s of bus bandwidth on 4
      // adapters of 8 A100s, 0.96 of the line rate (github.com/NVIDIA/nccl-tests/issues/119): 192 Gb/s.
      node("dgx_a100", "a100", IntraNode::Switch, 235e9, 8, 192e9,
           "NVIDIA DGX A100: 8 A100 GPUs, NVSwitch (235 GB/s achievable per GPU per direction of 300), 8 x 200 Gb/s "
           "HDR InfiniBand (192 achievable)"),
      // NVIDIA DGX H100 data sheet: 8 H100 SXM5, 4 NVSwitches, 900 GB/s of NVLink 4.0 per GPU (450 GB/s per
      // direction), 8 ConnectX-7 400 Gb/s adapters (in 4 OSFP ports) for the compute fabric. Achievable:
      // "450GB/s is the line rate. With the protocol overhead (~20%) NCCL can get an effective NVLink
      // bandwidth of 370GB/s" (NCCL's maintainer, github.com/NVIDIA/nccl-tests/issues/212). NDR InfiniBand:
      // no published achievable figure found, the line rate.
      // Its third-generation NVSwitches reduce in the switch (NVLink SHARP), NCCL's NVLS algorithm.
      node("dgx_h100", "h100", IntraNode::Switch, 370e9, 8, 400e9,
           "NVIDIA DGX H100: 8 H100 GPUs, NVSwitch with NVLink SHARP (370 GB/s achievable per GPU per direction of "
           "450), 8 x 400 Gb/s InfiniBand NDR",
           true),
      // HGX H800, as DeepSeek-V3 ran on it: DeepEP's README (deepseek-ai/DeepEP at
      // ebfe47e46fa86a5b41be96c326a92f62ed6721da), "H800 (~160 GB/s NVLink maximum bandwidth)" and "CX7
      // InfiniBand 400 Gb/s RDMA network card (~50 GB/s maximum bandwidth)", one a GPU; its NVSwitches are the
      // H100's, which reduce.
      node("hgx_h800", "h800", IntraNode::Switch, 160e9, 8, 400e9,
           "NVIDIA HGX H800: 8 H800 GPUs, NVSwitch (160 GB/s achievable per GPU per direction), 8 x 400 Gb/s "
           "InfiniBand NDR",
           true),
      // NVLink 5 (Blackwell): 18 links, 1.8 TB/s both ways per GPU; achievable, NCCL's per-link figure for
      // compute capability 10.0, SM100_NVLINK_BW 40.1 GB/s (NVIDIA/nccl 5067397c, src/graph/topo.h) x 18 = 722
      // GB/s (SM90's 20.6 x 18 = 371 is the H100's 370 above). NVLS on Blackwell runs at NCCL's
      // nvlsEfficiency 0.74 (0.85 on Hopper), which dtsim's NVLS does not tell apart.
      // DGX B200 (MLPerf Training v6.0, Nebius): "8x ConnectX-7 IB NDR 400Gb/s".
      node("dgx_b200", "b200", IntraNode::Switch, 722e9, 8, 400e9,
           "NVIDIA DGX B200: 8 B200 GPUs, NVLink 5 switch (722 GB/s achievable per GPU per direction of 900), "
           "8 x 400 Gb/s InfiniBand NDR",
           true),
      // GB200 NVL72: 72 GPUs in one NVLink domain (18 compute trays of 4, 9 NVLink switch trays), each GPU a
      // ConnectX-7 of 400 Gb/s (MLPerf v6.1, Crusoe: "for each 4-GPU node: 4x ... ConnectX-7").
      node("gb200_nvl72", "gb200", IntraNode::Switch, 722e9, 72, 400e9,
           "NVIDIA GB200 NVL72 rack: 72 GPUs in one NVLink 5 domain (722 GB/s achievable per GPU per direction), "
           "72 x 400 Gb/s",
           true, 72),
      // HGX B300: NVLink 5 as above; "Networking Bandwidth 1.6 TB/s" for 8 GPUs, a ConnectX-8 of 800 Gb/s each.
      node("hgx_b300", "b300", IntraNode::Switch, 722e9, 8, 800e9,
           "NVIDIA HGX B300: 8 B300 GPUs, NVLink 5 switch (722 GB/s achievable per GPU per direction), 8 x 800 Gb/s "
           "ConnectX-8",
           true),
      // GB300 NVL72: 72 GPUs in one NVLink 5 domain, a ConnectX-8 of 800 Gb/s a GPU.
      node("gb300_nvl72", "gb300", IntraNode::Switch, 722e9, 72, 800e9,
           "NVIDIA GB300 NVL72 rack: 72 GPUs in one NVLink 5 domain (722 GB/s achievable per GPU per direction), "
           "72 x 800 Gb/s ConnectX-8",
           true, 72),
      // AMD Instinct platforms: 8 GPUs fully connected by Infinity Fabric (xGMI), a link between each pair.
      // MI300X: "xGMI's raw bandwidth is rated up to 64 GB/s for each point-to-point link ... approximately 48
      // GB/s per link" usable (AMD's ROCm blog, "MI300X RCCL xGMI"; RCCL's GFX94X_XGMI_WIDTH 48.0). No scale-out
      // adapter layout is published for either platform: one 400 Gb/s NIC a GPU, as the other platforms of
      // their generation, assumed; declare a node type of your own for yours.
      node("mi300x_platform", "mi300x", IntraNode::AllToAll, 48e9, 8, 400e9,
           "AMD Instinct MI300X platform: 8 GPUs fully connected by xGMI (48 GB/s usable per link per direction), "
           "8 x 400 Gb/s (assumed)"),
      // MI355X: "connected with Infinity Fabric with a bandwidth of 153.6 GB/s (in each direction
      // simultaneously)" (OLCF's Lux user guide), line rate.
      node("mi355x_platform", "mi355x", IntraNode::AllToAll, 153.6e9, 8, 400e9,
           "AMD Instinct MI355X platform: 8 GPUs fully connected by Infinity Fabric (153.6 GB/s per link per "
           "direction), 8 x 400 Gb/s (assumed)"),
  };
  return nodes;
}

std::optional<CatalogNode> find_builtin_node(const std::string& name) {
  const auto& all = builtin_nodes();
  const auto it = std::find_if(all.begin(), all.end(), [&](const CatalogNode& n) { return n.name == name; });
  if (it == all.end()) return std::nullopt;
  return *it;
}

std::vector<std::string> builtin_node_names() {
  std::vector<std::string> names;
  for (const auto& n : builtin_nodes()) names.push_back(n.name);
  return names;
}

std::string_view to_string(IntraNode intra) {
  switch (intra) {
    case IntraNode::AllToAll: return "all_to_all";
    case IntraNode::Switch: return "switch";
    case IntraNode::CubeMesh: return "cube_mesh";
  }
  return "all_to_all";
}

}  // namespace dtsim::scenario
