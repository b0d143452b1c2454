#include "sim/runtime/setup/host_layer_tables.hpp"

#include "models/device_share.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/scenario/parallel_layout.hpp"

#include <algorithm>

namespace dtsim::runtime {
namespace {
constexpr std::size_t kSearchedKinds = 64;
}  // namespace

const models::ModelProfile& HostLayerTables::of(const models::ModelProfile& profile, const scenario::TrainingSpec& training,
                                                const scenario::DeviceProfile& device, double batch) const {
  // A cluster of many kinds (a node type per worker) would search long: past the first kinds, each new one
  // is kept without being looked for again.
  const std::size_t searched = std::min(tables_.size(), kSearchedKinds);
  for (std::size_t i = 0; i < searched; ++i) {
    if (tables_[i].batch == batch && tables_[i].device == device) return *tables_[i].layers;
  }
  tables_.push_back({device, batch,
                     std::make_unique<const models::ModelProfile>(compute::host_flops(
                         models::device_share(profile, scenario::device_share_of(training)), batch, device))});
  return *tables_.back().layers;
}

}  // namespace dtsim::runtime
