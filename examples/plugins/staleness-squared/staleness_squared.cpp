// A sync strategy as a plug-in: asynchronous SGD that damps stale gradients harder than the built-in
// staleness_aware does. The parameter server applies each gradient as it arrives; one computed on parameters
// `staleness` updates old is applied with the learning rate divided by (1 + staleness)^2.
//
//   dtsim check-plugin build/libstaleness_squared.so           # it trains, and deterministically
//   dtsim run lab.yaml --plugin build/libstaleness_squared.so  # training.sync: {strategy: staleness_squared}

#include <dtsim/plugin.hpp>

#include <cstdint>
#include <memory>

namespace {

class StalenessSquared final : public dtsim::sync::SyncStrategy {
 public:
  [[nodiscard]] std::string_view name() const override { return "staleness_squared"; }
  // Not lock-step, no bound: workers go on with whatever parameters the server has.
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] dtsim::sync::Apply apply() const override { return dtsim::sync::Apply::OnArrival; }
  [[nodiscard]] int staleness_bound() const override { return -1; }
  [[nodiscard]] double learning_rate_scale(std::int64_t staleness) const override {
    const double damping = 1.0 + static_cast<double>(staleness);
    return 1.0 / (damping * damping);
  }
};

}  // namespace

DTSIM_PLUGIN(registries) {
  registries.strategies.add("staleness_squared",
                            "asynchronous, each gradient's learning rate divided by (1 + staleness)^2 (parameter server)",
                            {.make = [](const dtsim::core::ParameterValues&) { return std::make_unique<StalenessSquared>(); },
                             .example = "{strategy: staleness_squared}"});
}
