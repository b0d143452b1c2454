#include "models/optimizer.hpp"

#include "models/sgd.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

namespace dtsim::models {
namespace {

using Map = Eigen::Map<Eigen::VectorXf>;
using ConstMap = Eigen::Map<const Eigen::VectorXf>;

Map as_map(std::span<float> values) { return {values.data(), static_cast<Eigen::Index>(values.size())}; }
ConstMap as_map(std::span<const float> values) { return {values.data(), static_cast<Eigen::Index>(values.size())}; }

void check(std::span<float> parameters, std::span<const float> gradient, std::size_t offset, std::size_t size) {
  if (parameters.size() != gradient.size() || offset + parameters.size() > size) {
    throw std::invalid_argument("optimizer: gradient and parameters differ in size, or lie outside its state");
  }
}

/// models::Sgd: parameters -= learning_rate * gradient; no state.
class SgdOptimizer final : public Optimizer {
 public:
  SgdOptimizer(double learning_rate, std::size_t size) : learning_rate_(learning_rate), sgd_(learning_rate), size_(size) {}
  void update(std::span<float> parameters, std::span<const float> gradient, std::size_t offset) override {
    check(parameters, gradient, offset, size_);
    if (rate_scale() == 1.0) {
      sgd_.step(parameters, gradient);
    } else {
      Sgd(learning_rate_ * rate_scale()).step(parameters, gradient);
    }
  }
  [[nodiscard]] double flops(std::size_t count) const override { return Sgd::flops(count); }
  [[nodiscard]] int state_per_parameter() const override { return 0; }
  [[nodiscard]] std::unique_ptr<Optimizer> clone() const override { return std::make_unique<SgdOptimizer>(*this); }

 private:
  double learning_rate_;
  Sgd sgd_;
  std::size_t size_;
};

/// velocity = momentum * velocity + gradient; parameters -= learning_rate * velocity.
class MomentumOptimizer final : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum, std::size_t size)
      : learning_rate_(learning_rate), momentum_(static_cast<float>(momentum)), velocity_(size, 0.0F) {}
  void update(std::span<float> parameters, std::span<const float> gradient, std::size_t offset) override {
    check(parameters, gradient, offset, velocity_.size());
    Map velocity(velocity_.data() + offset, static_cast<Eigen::Index>(parameters.size()));
    velocity = momentum_ * velocity + as_map(gradient);
    as_map(parameters).noalias() -= static_cast<float>(learning_rate_ * rate_scale()) * velocity;
  }
  /// Two for the velocity, two for the step, per parameter.
  [[nodiscard]] double flops(std::size_t count) const override { return 4.0 * static_cast<double>(count); }
  [[nodiscard]] int state_per_parameter() const override { return 1; }
  [[nodiscard]] std::unique_ptr<Optimizer> clone() const override { return std::make_unique<MomentumOptimizer>(*this); }

 private:
  double learning_rate_;
  float momentum_;
  std::vector<float> velocity_;
};

/// Adam (Kingma and Ba): m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; with t updates so far,
/// parameters -= learning_rate * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + epsilon). Positions an update
/// does not touch keep their moments (lazy Adam, for sparse rows).
class AdamOptimizer final : public Optimizer {
 public:
  AdamOptimizer(const OptimizerSettings& s, std::size_t size)
      : learning_rate_(s.learning_rate), beta1_(s.beta1), beta2_(s.beta2), epsilon_(s.epsilon), first_(size, 0.0F),
        second_(size, 0.0F) {}
  void on_begin_update() override { ++updates_; }
  void update(std::span<float> parameters, std::span<const float> gradient, std::size_t offset) override {
    check(parameters, gradient, offset, first_.size());
    if (updates_ == 0) throw std::logic_error("adam: update() before begin_update()");
    const auto b1 = static_cast<float>(beta1_);
    const auto b2 = static_cast<float>(beta2_);
    const auto first_correction = static_cast<float>(1.0 / (1.0 - std::pow(beta1_, static_cast<double>(updates_))));
    const auto second_correction = static_cast<float>(1.0 / (1.0 - std::pow(beta2_, static_cast<double>(updates_))));
    const auto rate = static_cast<float>(learning_rate_ * rate_scale());
    const auto guard = static_cast<float>(epsilon_);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      float& m = first_[offset + i];
      float& v = second_[offset + i];
      m = b1 * m + (1.0F - b1) * gradient[i];
      v = b2 * v + (1.0F - b2) * gradient[i] * gradient[i];
      parameters[i] -= rate * (m * first_correction) / (std::sqrt(v * second_correction) + guard);
    }
  }
  /// Per parameter: 3 for m, 4 for v, 2 for the corrections, 1 square root, 1 addition, 1 division, 2 for the
  /// step.
  [[nodiscard]] double flops(std::size_t count) const override { return 14.0 * static_cast<double>(count); }
  [[nodiscard]] int state_per_parameter() const override { return 2; }
  [[nodiscard]] std::unique_ptr<Optimizer> clone() const override { return std::make_unique<AdamOptimizer>(*this); }

 private:
  double learning_rate_;
  double beta1_;
  double beta2_;
  double epsilon_;
  std::int64_t updates_ = 0;
  std::vector<float> first_;
  std::vector<float> second_;
};

}  // namespace

void Optimizer::apply(Parameters& parameters, const Parameters& gradient) {
  begin_update();
  update(std::span<float>(parameters.data(), static_cast<std::size_t>(parameters.size())),
         std::span<const float>(gradient.data(), static_cast<std::size_t>(gradient.size())), 0);
}

void register_builtin_optimizers(OptimizerRegistry& registry) {
  registry.add("sgd", "plain stochastic gradient descent",
               {.parameters = {},
                .make = [](double learning_rate, const core::ParameterValues&,
                           std::size_t size) -> std::unique_ptr<Optimizer> {
                  return std::make_unique<SgdOptimizer>(learning_rate, size);
                },
                .example = "{kind: sgd, learning_rate: 0.1}"});
  registry.add("momentum", "SGD with (heavy-ball) momentum",
               {.parameters = {core::number("momentum", 0.0, 1.0, "momentum factor").fallback("0.9")},
                .make = [](double learning_rate, const core::ParameterValues& p,
                           std::size_t size) -> std::unique_ptr<Optimizer> {
                  return std::make_unique<MomentumOptimizer>(learning_rate, p.number("momentum"), size);
                },
                .example = "{kind: momentum, learning_rate: 0.1, momentum: 0.9}"});
  registry.add("adam", "Adam, with bias correction; lazy on sparse rows",
               {.parameters = {core::number("beta1", 0.0, 1.0, "first-moment decay").fallback("0.9"),
                               core::number("beta2", 0.0, 1.0, "second-moment decay").fallback("0.999"),
                               core::number("epsilon", 0.0, 1.0, "denominator guard").exclusive_min().fallback("1e-8")},
                .make = [](double learning_rate, const core::ParameterValues& p,
                           std::size_t size) -> std::unique_ptr<Optimizer> {
                  return std::make_unique<AdamOptimizer>(OptimizerSettings{.kind = "adam",
                                                                           .learning_rate = learning_rate,
                                                                           .beta1 = p.number("beta1"),
                                                                           .beta2 = p.number("beta2"),
                                                                           .epsilon = p.number("epsilon")},
                                                         size);
                },
                .example = "{kind: adam, learning_rate: 0.001, beta2: 0.99}"});
}

std::unique_ptr<Optimizer> make_optimizer(const OptimizerSettings& settings, std::size_t size) {
  static const OptimizerRegistry registry = [] {
    OptimizerRegistry filled("optimizer");
    register_builtin_optimizers(filled);
    return filled;
  }();
  if (!registry.contains(settings.kind)) throw std::invalid_argument("unknown optimizer '" + settings.kind + "'");
  const OptimizerPlugin& entry = registry.find(settings.kind).factory;
  // The settings as the entry's own keys, each given its declared default by the settings' fields.
  const std::map<std::string, double> fields{
      {"momentum", settings.momentum}, {"beta1", settings.beta1}, {"beta2", settings.beta2}, {"epsilon", settings.epsilon}};
  core::ParameterValues values;
  for (const core::SchemaNode& parameter : entry.parameters) {
    values.set(parameter.key, fmt::format("{}", fields.at(parameter.key)), {});
  }
  return entry.make(settings.learning_rate, values, size);
}

}  // namespace dtsim::models
