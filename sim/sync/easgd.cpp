// Elastic averaging SGD (Zhang, Choromanska and LeCun, "Deep learning with Elastic Averaging SGD", NIPS 2015),
// asynchronous: each worker takes SGD steps on its own parameters x; every `tau` steps it sends x to the
// servers, which hold the center variable c. With the moving rate alpha = learning_rate x rho, the server
// moves the center toward the worker, c += alpha (x - c), and replies with the center it had; the worker
// moves toward it by the same amount, x -= alpha (x - c). The elastic force pulls the workers together
// without making them equal.

#include "sim/sync/sync_strategy.hpp"

#include <fmt/format.h>

namespace dtsim::sync {
namespace {

class Easgd final : public SyncStrategy {
 public:
  Easgd(double rho, int tau) : rho_(rho), tau_(tau) {}
  [[nodiscard]] std::string_view name() const override { return "easgd"; }
  [[nodiscard]] bool lock_step() const override { return false; }
  [[nodiscard]] Apply apply() const override { return Apply::OnArrival; }
  [[nodiscard]] int staleness_bound() const override { return -1; }
  [[nodiscard]] bool accumulates_locally() const override { return true; }
  [[nodiscard]] bool send_now(double /*relative*/, std::int64_t delay) const override { return delay >= tau_; }
  [[nodiscard]] bool locked() const override { return true; }
  void after_gradient_with_servers(std::int64_t iteration, std::int64_t last, PushActions& actions) const override {
    push_when_due(iteration, last, actions);
  }

  void on_push(std::span<const float> parameters, std::span<float> message) const override {
    std::copy(parameters.begin(), parameters.end(), message.begin());
  }
  [[nodiscard]] std::optional<double> on_server_receive(std::span<float> center, std::span<const float> worker,
                                                        std::vector<float>& reply, double learning_rate) const override {
    const auto alpha = static_cast<float>(learning_rate * rho_);
    reply.assign(center.begin(), center.end());
    for (std::size_t i = 0; i < center.size(); ++i) center[i] += alpha * (worker[i] - center[i]);
    return 3.0 * static_cast<double>(center.size());  // a subtraction, a multiplication and an addition each
  }
  void on_pull(std::span<float> parameters, std::span<const float> center, double learning_rate) const override {
    const auto alpha = static_cast<float>(learning_rate * rho_);
    for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] -= alpha * (parameters[i] - center[i]);
  }

 private:
  double rho_;
  int tau_;
};

}  // namespace

void register_easgd(SyncRegistry& registry) {
  registry.add(
      "easgd", "elastic averaging SGD: workers step on their own, pulled toward the servers' center every tau steps",
      {.parameters = {core::number("rho", 0.0, 1e6, "elasticity: the moving rate is learning_rate x rho").require().exclusive_min(),
                      core::integer("tau", 1, 1'000'000'000, "local steps between exchanges with the center").fallback("1")},
       .make = [](const core::ParameterValues& p) {
         return std::make_unique<Easgd>(p.number("rho"), static_cast<int>(p.integer("tau")));
       },
       .check = [](const core::ParameterValues& p, const StrategyContext& context, core::DiagnosticSink& sink) {
         // The worker and the center each move by alpha of their distance: at alpha >= 1 they overshoot.
         const double alpha = context.learning_rate * p.number("rho");
         if (alpha >= 1.0) {
           sink.error(p.where("rho"), "training.sync.rho",
                      fmt::format("the moving rate learning_rate x rho is {:g}, and must be below 1", alpha),
                      fmt::format("use rho below {:g}", 1.0 / context.learning_rate));
         }
       },
       .example = "{strategy: easgd, rho: 0.5, tau: 4}"});
}

}  // namespace dtsim::sync
