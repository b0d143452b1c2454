#include "models/sgd.hpp"

#include <stdexcept>

namespace dtsim::models {

void Sgd::apply(Parameters& parameters, const Parameters& gradient) const {
  step(std::span<float>(parameters.data(), static_cast<std::size_t>(parameters.size())),
       std::span<const float>(gradient.data(), static_cast<std::size_t>(gradient.size())));
}

void Sgd::step(std::span<float> parameters, std::span<const float> gradient) const {
  if (parameters.size() != gradient.size()) throw std::invalid_argument("sgd: gradient size differs from parameters");
  Eigen::Map<Eigen::VectorXf>(parameters.data(), static_cast<Eigen::Index>(parameters.size())).noalias() -=
      learning_rate_ * Eigen::Map<const Eigen::VectorXf>(gradient.data(), static_cast<Eigen::Index>(gradient.size()));
}

}  // namespace dtsim::models
