// A mixture-of-experts classifier trained for real under data x expert parallelism must end where one
// process doing the same optimizer steps on the global batch ends: the tokens, the experts' outputs and both
// their gradients cross the expert group by real all-to-alls, and the replicas sum real gradients (the trunk
// and the gate over every replica, the experts over those holding them), so only the order of float sums
// differs.

#include "models/moe_classifier.hpp"
#include "models/optimizer.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/runtime/model_parallel/token_exchange.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "tests/sim/global_batch.hpp"
#include "tests/sim/recording_observer.hpp"
#include "tests/support/scenario_format.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dtsim {
namespace mixture_test {

struct Spread {
  int data;
  int expert;
  int microbatches;
  int top_k;
};

void PrintTo(const Spread& s, std::ostream* out) {
  *out << fmt::format("data {} x expert {}, {} micro-batches, top-{}", s.data, s.expert, s.microbatches, s.top_k);
}

std::string mixture_scenario(const Spread& spread) {
  return fmt::format(R"(name: mixture
seed: 5
cluster:
  workers: {}
  device: {{peak_flops: "1TFLOPS", efficiency: 0.5}}
topology:
  kind: ring
  link: {{bandwidth: "10Gbps", latency: "5us"}}
model: {{kind: moe, experts: 4, top_k: {}, width: 12, expert_width: 8, activation: tanh}}
data: {{kind: gaussian_blobs, samples: 600, features: 6, classes: 4}}
training:
  parallelism: {{data: {}, expert: {}, microbatches: {}}}
  batch: {{per_worker: 8}}
  optimizer: {{kind: adam, learning_rate: 0.01}}
  stop: {{iterations: 12}}
)",
                     spread.data, spread.top_k, spread.data, spread.expert, spread.microbatches);
}

class Mixture : public ::testing::TestWithParam<Spread> {};

TEST_P(Mixture, EndsWithTheParametersOfOneProcessWithTheGlobalBatch) {
  const auto scenario =
      scenario::read_scenario_text(dtsim::test::scenario_format(), mixture_scenario(GetParam()), "mixture.yaml");
  const checks::Registries registries = checks::make_builtin_registries();
  const runtime::TrainingSetup setup = checks::resolve_scenario(scenario, registries);
  testing::RecordingObserver observed;
  const metrics::RunRecord record = runtime::run_training(scenario, setup, {}, &observed);
  const auto optimizer = setup.make_optimizer(setup.model().parameter_count());
  const models::Parameters reference =
      testing::one_process_on_the_global_batch(setup, scenario.training.parallelism.data, *optimizer);
  ASSERT_EQ(observed.final_parameters.size(), static_cast<std::size_t>(reference.size()));
  const Eigen::Map<const Eigen::VectorXf> simulated(observed.final_parameters.data(), reference.size());
  EXPECT_LE((simulated - reference).cwiseAbs().maxCoeff(), 1e-5 * reference.cwiseAbs().maxCoeff())
      << "largest difference " << (simulated - reference).cwiseAbs().maxCoeff();
  EXPECT_GT((reference - setup.model().initial_parameters()).norm(), 0.1);
  // The tokens really travel between the devices of an expert group, and only there.
  double expert_bytes = 0.0;
  for (const metrics::HostActivity& host : record.hosts) expert_bytes += host.expert_bytes_sent;
  if (GetParam().expert > 1) {
    EXPECT_GT(expert_bytes, 0.0);
  } else {
    EXPECT_EQ(expert_bytes, 0.0);
  }
  EXPECT_LT(record.active_parameter_count, record.parameter_count);
  ASSERT_EQ(record.evaluations.size(), 2U);
}

INSTANTIATE_TEST_SUITE_P(Spreads, Mixture,
                         ::testing::Values(Spread{2, 1, 1, 2}, Spread{2, 2, 1, 2}, Spread{4, 2, 2, 1},
                                           Spread{4, 4, 1, 2}, Spread{4, 4, 4, 1}),
                         [](const auto& param_info) {
                           const Spread& s = param_info.param;
                           return fmt::format("data{}_expert{}_micro{}_top{}", s.data, s.expert, s.microbatches, s.top_k);
                         });

/// Two devices of an expert group (experts 0-1 on the first, 2-3 on the second) pack their tokens, read what
/// the other sent, and return each token's row: every row comes back to the slot it left.
TEST(TokenExchange, EveryRowReturnsToItsSlot) {
  const models::MixtureShape shape{.features = 3, .width = 5, .experts = 4, .expert_width = 2, .classes = 2, .top_k = 2};
  const models::MoeClassifier model(shape, 9);
  const models::Parameters p = model.initial_parameters();
  std::vector<models::FrontPass> fronts;
  std::vector<models::RowMatrix> slot_inputs;
  std::vector<runtime::SlotsByDevice> by_device;
  std::vector<std::vector<comm::Buffer>> sent;
  for (int device = 0; device < 2; ++device) {
    const models::RowMatrix inputs = models::RowMatrix::Random(7, 3);
    fronts.push_back(models::front_forward(shape, std::span(p.data(), shape.dense_parameters()), inputs));
    const models::Routing& r = fronts.back().routing;
    std::vector<Eigen::Index> token_of;
    for (std::size_t t = 0; t < r.slots(); ++t) token_of.push_back(static_cast<Eigen::Index>(t / 2));
    slot_inputs.emplace_back(fronts.back().hidden(token_of, Eigen::all));
    by_device.push_back(runtime::slots_by_device(r, 2, 2));
    sent.push_back(runtime::slot_messages(slot_inputs.back(), r, by_device.back(), 2));
  }
  std::vector<std::vector<comm::Buffer>> back(2, std::vector<comm::Buffer>(2));
  for (int device = 0; device < 2; ++device) {
    const auto d = static_cast<std::size_t>(device);
    const runtime::Arrivals arrivals = runtime::read_tokens({sent[0][d], sent[1][d]}, 2, shape.width);
    std::size_t expected_rows = 0;
    for (int from = 0; from < 2; ++from) expected_rows += by_device[static_cast<std::size_t>(from)][d].size();
    EXPECT_EQ(static_cast<std::size_t>(arrivals.tokens[0].rows() + arrivals.tokens[1].rows()), expected_rows);
    // The "experts" return their tokens as they came.
    std::vector<comm::Buffer> replies = runtime::replies(arrivals, arrivals.tokens);
    for (int to = 0; to < 2; ++to) back[static_cast<std::size_t>(to)][d] = std::move(replies[static_cast<std::size_t>(to)]);
  }
  for (int device = 0; device < 2; ++device) {
    const auto d = static_cast<std::size_t>(device);
    const models::RowMatrix returned = runtime::in_slot_order(back[d], by_device[d], fronts[d].routing.slots(), shape.width);
    EXPECT_EQ(returned, slot_inputs[d]);
  }
}

}  // namespace mixture_test
}  // namespace dtsim
