#include "sim/app/registries.hpp"

#include <map>

namespace dtsim::app {

Registries make_builtin_registries() {
  Registries registries;
  topologies::register_builtin_topologies(registries.topologies);
  models::register_builtin_models(registries.models);
  sync::register_builtin_strategies(registries.strategies);
  return registries;
}

const std::vector<std::string>& planned_names(const std::string& kind) {
  static const std::map<std::string, std::vector<std::string>> kPlanned{
      {"topology", {"tree", "fat_tree", "mesh", "random_regular", "torus", "hierarchical", "custom"}},
      {"model", {"softmax_regression", "mlp", "glove", "matrix_factorization"}},
      {"sync strategy", {"ssp", "adaptive_ssp", "approximate", "async", "staleness_aware", "local_sgd", "gossip"}},
      {"allreduce algorithm", {"tree", "double_binary_tree", "halving_doubling", "hierarchical", "direct"}},
      {"optimizer", {"momentum", "adam"}},
      {"data kind", {"csv", "digits", "iris", "wine", "breast_cancer", "text_corpus"}},
  };
  static const std::vector<std::string> kNone;
  const auto it = kPlanned.find(kind);
  return it == kPlanned.end() ? kNone : it->second;
}

}  // namespace dtsim::app
