#pragma once
// The layer table a timing-only worker computes from, made once per kind of device and shared by the workers
// that have it: a table is a few hundred layers (some 40 KB for GPT-2 XL), and each worker making its own
// two held 1.6 GB at 16,384 workers and took most of their start-up in allocations.

#include "models/model_profile.hpp"
#include "sim/scenario/scenario.hpp"

#include <memory>
#include <vector>

namespace dtsim::runtime {

class HostLayerTables {
 public:
  /// The layers of `profile` one device holds under `training`'s split (models::device_share), with the
  /// FLOPs that `device` executes for a batch of `batch` samples (compute::host_flops). Valid as long as this
  /// object. Not thread-safe; SimGrid runs actors one at a time.
  [[nodiscard]] const models::ModelProfile& of(const models::ModelProfile& profile, const scenario::TrainingSpec& training,
                                               const scenario::DeviceProfile& device, double batch) const;

 private:
  struct Table {
    scenario::DeviceProfile device;
    double batch = 0.0;
    std::unique_ptr<const models::ModelProfile> layers;
  };
  // A cluster has a handful of kinds of device: found by comparing every figure (each worker has its own copy
  // of its device's). The profile and split are the run's, the same for every call.
  mutable std::vector<Table> tables_;
};

}  // namespace dtsim::runtime
