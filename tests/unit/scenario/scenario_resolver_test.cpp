#include "sim/checks/compute_backend.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/scenario/plugin_schema.hpp"
#include "sim/scenario/scenario_builder.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include "scenario_text.hpp"
#include "tests/support/scenario_format.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace dtsim::checks {
namespace {

const std::string kBase = R"(name: small
cluster:
  workers: 4
  device: {peak_flops: "10TFLOPS"}
topology:
  kind: ring
  link: {bandwidth: "10Gbps", latency: "5us"}
model: {kind: logistic_regression}
data: {kind: synthetic_classification, samples: 1000, features: 8}
training:
  batch: {per_worker: 16}
  optimizer: {learning_rate: 0.5}
  stop: {epochs: 2}
)";

std::string error_of(const std::string& text) {
  const Registries registries = make_builtin_registries();
  try {
    resolve_scenario(scenario::read_scenario_text(dtsim::test::scenario_format(), text, "s.yaml"), registries);
  } catch (const core::InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ScenarioResolver, BuildsTopologyDataAndSchedule) {
  const Registries registries = make_builtin_registries();
  const auto setup = resolve_scenario(scenario::read_scenario_text(dtsim::test::scenario_format(), kBase, "s.yaml"), registries);
  EXPECT_EQ(setup.graph.workers().size(), 4U);
  EXPECT_EQ(setup.model().parameter_count(), 9U);
  EXPECT_EQ(setup.data.train.size(), 800U);
  EXPECT_EQ(setup.data.validation.size(), 200U);
  EXPECT_EQ(setup.schedule.iterations_per_epoch(), 12U);  // 200 samples per worker / 16
  EXPECT_EQ(setup.total_iterations, 24);
  EXPECT_EQ(setup.evaluate_every, 12);
}

TEST(ScenarioResolver, HierarchicalTopologyNeedsNodes) {
  EXPECT_EQ(error_of(testing::replace_once(kBase, "kind: ring", "kind: hierarchical")),
            "s.yaml:6:9: error: topology.kind: a hierarchical topology needs multi-device nodes: declare "
            "cluster.node_types and cluster.nodes\n"
            "  hint: node_types: {dgx: {devices: 8, intra_link: {bandwidth: 300GBps, latency: 1us}}}, nodes: [{type: "
            "dgx, count: 4}]");
}

TEST(ScenarioResolver, MisspelledTopologySuggestsTheClosest) {
  EXPECT_EQ(error_of(testing::replace_once(kBase, "kind: ring", "kind: rnig")),
            "s.yaml:6:9: error: topology.kind: unknown topology 'rnig'\n"
            "  hint: did you mean 'ring'?");
  // With no close name, every registered topology.
  const std::string far = error_of(testing::replace_once(kBase, "kind: ring", "kind: banana"));
  for (const std::string& name : dtsim::test::scenario_format().registries().topologies.registration_order()) {
    EXPECT_NE(far.find(name), std::string::npos) << name << " missing from " << far;
  }
}

TEST(ScenarioResolver, AParameterServerJoinsTheRingAfterTheWorkers) {
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), 
      testing::replace_once(kBase, "  stop:", "  architecture: {kind: parameter_server, shards: 2}\n  stop:"), "s.yaml");
  EXPECT_NO_THROW(check_scenario(scenario, make_builtin_registries()));
  const auto graph = scenario::build_topology(scenario, make_builtin_registries().topologies);
  EXPECT_EQ(graph.workers().size(), 4U);
  ASSERT_EQ(graph.servers().size(), 2U);
  EXPECT_EQ(graph.node(graph.servers()[0]).name, "server-0");
}

TEST(ScenarioResolver, TooFewSamplesForOneBatchPerWorker) {
  EXPECT_EQ(error_of(testing::replace_once(kBase, "samples: 1000", "samples: 60")),
            "s.yaml:9:49: error: data.samples: 48 training samples cannot fill one batch of 16 on each of 4 workers (64 "
            "needed)\n  hint: raise data.samples, or lower training.batch.per_worker or cluster.workers");
}

TEST(ScenarioResolver, HybridNeedsASparseModel) {
  EXPECT_EQ(error_of(testing::replace_once(kBase, "  stop:", "  architecture: {kind: hybrid}\n  stop:")),
            "s.yaml:13:24: error: training.architecture.kind: hybrid sends sparse rows through servers, and "
            "'logistic_regression' has no sparse parameters\n"
            "  hint: use a model with embeddings (matrix_factorization), or training.architecture.kind: allreduce");
}

TEST(ScenarioResolver, OnArrivalStrategiesNeedAParameterServer) {
  EXPECT_EQ(error_of(testing::replace_once(kBase, "  stop:", "  sync: {strategy: async}\n  stop:")),
            "s.yaml:13:20: error: training.sync.strategy: 'async' needs a parameter server to apply updates as they "
            "arrive, and the architecture is allreduce\n"
            "  hint: use training.architecture.kind: parameter_server, or a strategy that runs on an allreduce: bsp, "
            "ssp, local_sgd, gossip");
}

TEST(ScenarioResolver, SspRunsOnAnAllreduce) {
  const auto scenario = scenario::read_scenario_text(dtsim::test::scenario_format(), 
      testing::replace_once(kBase, "  stop:", "  sync: {strategy: ssp, staleness: 2}\n  stop:"), "s.yaml");
  EXPECT_NO_THROW(check_scenario(scenario, make_builtin_registries()));
}

}  // namespace
}  // namespace dtsim::checks

namespace dtsim::checks {
namespace {

// backend: cuda is refused where it cannot run, naming why; auto computes on the CPU with a notice when
// the model could have used CUDA.
TEST(ScenarioResolver, CudaBackendRunsOnlyWhereItCan) {
  const std::string mlp = testing::replace_once(
      testing::replace_once(kBase, "model: {kind: logistic_regression}", "model: {kind: mlp, layers: [8]}"),
      "  batch:", "  backend: cuda\n  batch:");
  const std::string logistic = testing::replace_once(kBase, "  batch:", "  backend: cuda\n  batch:");
  if (!built_with_cuda()) {
    EXPECT_NE(error_of(mlp).find("built without the CUDA backend"), std::string::npos) << error_of(mlp);
  } else if (cuda_devices() == 0) {
    EXPECT_NE(error_of(mlp).find("no CUDA device is visible"), std::string::npos) << error_of(mlp);
  } else {
    EXPECT_EQ(error_of(mlp), "no error");
    EXPECT_NE(error_of(logistic).find("computes softmax_regression and mlp"), std::string::npos);
  }
  const Registries registries = make_builtin_registries();
  const std::string auto_mlp = testing::replace_once(kBase, "model: {kind: logistic_regression}", "model: {kind: mlp, layers: [8]}");
  const auto setup = resolve_scenario(scenario::read_scenario_text(dtsim::test::scenario_format(), auto_mlp, "s.yaml"), registries);
  EXPECT_EQ(setup.backend_notice.empty(), built_with_cuda() && cuda_devices() > 0) << setup.backend_notice;
  EXPECT_EQ(resolve_scenario(scenario::read_scenario_text(dtsim::test::scenario_format(), kBase, "s.yaml"), registries).backend_notice, "");
}

// The CUDA runtime and cuBLAS cost about 0.4 s and 200 MB to load: a run whose model never computes on CUDA
// (or any command that does not run one) must not load them; one that may (auto, a dense classifier) loads
// the backend module then. Each test is its own process, so the maps show what this test loaded.
std::string mapped_files() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}

TEST(ScenarioResolver, CudaIsLoadedOnlyByARunThatMayComputeOnIt) {
  const Registries registries = make_builtin_registries();
  static_cast<void>(resolve_scenario(scenario::read_scenario_text(dtsim::test::scenario_format(), kBase, "s.yaml"), registries));
  EXPECT_EQ(mapped_files().find("libcudart"), std::string::npos);
  EXPECT_EQ(mapped_files().find("libdtsim_cuda_backend"), std::string::npos);
  const std::string auto_mlp = testing::replace_once(kBase, "model: {kind: logistic_regression}", "model: {kind: mlp, layers: [8]}");
  static_cast<void>(resolve_scenario(scenario::read_scenario_text(dtsim::test::scenario_format(), auto_mlp, "s.yaml"), registries));
  EXPECT_EQ(mapped_files().find("libdtsim_cuda_backend") != std::string::npos, built_with_cuda());
}

}  // namespace
}  // namespace dtsim::checks
