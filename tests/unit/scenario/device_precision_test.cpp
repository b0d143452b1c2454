#include "sim/compute/device_cost_model.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

namespace dtsim::scenario {
namespace {

std::string with_device(const std::string& device) {
  return "name: d\ncluster:\n  workers: 2\n  device: " + device +
         "\ntopology: {kind: ring, link: {bandwidth: \"10Gbps\", latency: \"5us\"}}\n"
         "model: {kind: logistic_regression}\ndata: {kind: synthetic_classification, samples: 100, features: 2}\n"
         "training:\n  batch: {per_worker: 4}\n  optimizer: {learning_rate: 0.1}\n  stop: {epochs: 1}\n";
}

TEST(DevicePrecision, MixedPrecisionTimesComputeByTheHalfPrecisionPeak) {
  const Scenario fp32 = read_scenario_text(dtsim::test::scenario_format(), with_device("{name: v100, efficiency: 0.5}"), "d.yaml");
  const Scenario mixed = read_scenario_text(dtsim::test::scenario_format(), with_device("{name: v100, efficiency: 0.5, precision: mixed}"), "d.yaml");
  EXPECT_DOUBLE_EQ(compute::sustained_rate(fp32.cluster.device).value(), 0.5 * 15.7e12);
  EXPECT_DOUBLE_EQ(compute::sustained_rate(mixed.cluster.device).value(), 0.5 * 125e12);
  const Scenario declared =
      read_scenario_text(dtsim::test::scenario_format(), with_device("{peak_flops: \"1TFLOPS\", half_flops: \"4TFLOPS\", precision: mixed, efficiency: 1}"), "d.yaml");
  EXPECT_DOUBLE_EQ(compute::compute_time(8e12, declared.cluster.device).value(), 2.0);
}

TEST(DevicePrecision, MixedPrecisionWithoutAHalfPrecisionPeakIsAnError) {
  try {
    static_cast<void>(read_scenario_text(dtsim::test::scenario_format(), with_device("{name: cpu, precision: mixed}"), "d.yaml"));
    FAIL() << "accepted";
  } catch (const core::InputError& error) {
    EXPECT_STREQ(error.what(), "d.yaml:4:34: error: cluster.device.precision: mixed precision needs the device's "
                               "half_flops, and 'cpu' has none\n  hint: declare half_flops, or use precision: fp32");
  }
}

}  // namespace
}  // namespace dtsim::scenario

namespace dtsim::scenario {
namespace {

// A run is unperturbed while nothing sets a worker or a link apart: a straggler does.
TEST(Unperturbed, AStragglerSetsARunApart) {
  const std::string base = with_device("{name: v100, efficiency: 0.5}");
  EXPECT_TRUE(read_scenario_text(dtsim::test::scenario_format(), base, "d.yaml").unperturbed());
  EXPECT_FALSE(read_scenario_text(dtsim::test::scenario_format(), base + "stragglers:\n  - workers: [1]\n    slowdown: 4\n", "d.yaml").unperturbed());
}

}  // namespace
}  // namespace dtsim::scenario
