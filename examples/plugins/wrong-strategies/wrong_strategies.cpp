// Two sync strategies that are wrong on purpose, to show what `dtsim check-plugin` reports:
//   never_learns  lock-step, but does nothing with the gradients: no update is ever applied;
//   random_rate   asynchronous, with a learning-rate factor drawn from the operating system's entropy, so
//                 that two runs of the same scenario and seed differ.

#include <dtsim/plugin.hpp>

#include <cstdint>
#include <memory>
#include <random>

namespace {

class NeverLearns final : public dtsim::sync::SyncStrategy {
 public:
  [[nodiscard]] std::string_view name() const override { return "never_learns"; }
  [[nodiscard]] bool lock_step() const override { return true; }
  [[nodiscard]] dtsim::sync::Apply apply() const override { return dtsim::sync::Apply::ByClock; }
  [[nodiscard]] int staleness_bound() const override { return 0; }
  void after_gradient(std::int64_t, std::int64_t, dtsim::sync::LockStepActions&) const override {}
};

class RandomRate final : public dtsim::sync::SyncStrategy {
 public:
  [[nodiscard]] std::string_view name() const override { return "random_rate"; }
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] dtsim::sync::Apply apply() const override { return dtsim::sync::Apply::OnArrival; }
  [[nodiscard]] int staleness_bound() const override { return -1; }
  [[nodiscard]] double learning_rate_scale(std::int64_t) const override {
    std::random_device entropy;  // the mistake: not the scenario's seeded streams
    return 0.5 + static_cast<double>(entropy()) / static_cast<double>(std::random_device::max());
  }
};

}  // namespace

DTSIM_PLUGIN(registries) {
  registries.strategies.add("never_learns", "lock-step, applies nothing",
                            {.make = [](const dtsim::core::ParameterValues&) { return std::make_unique<NeverLearns>(); },
                             .example = "{strategy: never_learns}"});
  registries.strategies.add("random_rate", "asynchronous, a random learning-rate factor from std::random_device",
                            {.make = [](const dtsim::core::ParameterValues&) { return std::make_unique<RandomRate>(); },
                             .example = "{strategy: random_rate}"});
}
