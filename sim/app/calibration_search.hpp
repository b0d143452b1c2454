#pragma once
// What the calibrations share: their refusals of bad input, and the one-dimensional search each fitted
// value is found by.

#include "sim/core/diagnostic.hpp"
#include "sim/scenario/scenario.hpp"

#include <functional>
#include <string>

namespace dtsim::app {

/// Throws core::InputError at `where` (a file, or the command's name) for `key`.
[[noreturn]] void refuse_input(const std::string& where, const std::string& key, std::string message,
                               std::string hint = {});

/// Calls `change` on every device profile of `s`: the cluster's, the servers', each worker's and each node
/// type's, so that a fitted or replayed figure reaches every worker that runs on the device.
void each_device(scenario::Scenario& s, const std::function<void(scenario::DeviceProfile&)>& change);

/// The minimum of a unimodal `f` over [low, high], by golden-section search until the bracket is narrower
/// than `width`.
double golden_minimum(const std::function<double(double)>& f, double low, double high, double width);

}  // namespace dtsim::app
