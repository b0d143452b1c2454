#include "models/sgd.hpp"

#include <stdexcept>

namespace dtsim::models {

void Sgd::apply(Parameters& parameters, const Parameters& gradient) const {
  if (parameters.size() != gradient.size()) throw std::invalid_argument("sgd: gradient size differs from parameters");
  parameters.noalias() -= learning_rate_ * gradient;
}

}  // namespace dtsim::models
