#pragma once
// The built-in collective algorithms as the comm tests name them: "operation/algorithm".

#include "sim/comm/collective_algorithm.hpp"

#include <memory>
#include <string>
#include <vector>

namespace dtsim::comm::testing {

/// Every built-in algorithm of every operation.
inline CollectiveCatalog builtin() {
  CollectiveCatalog catalog;
  register_builtin_collectives(catalog);
  return catalog;
}

/// "operation/algorithm" for every registered algorithm.
inline std::vector<std::string> algorithms() {
  const CollectiveCatalog catalog = builtin();
  std::vector<std::string> out;
  for (const Operation operation : all_operations()) {
    for (const auto& name : catalog.of(operation).names()) out.push_back(std::string(to_string(operation)) + "/" + name);
  }
  return out;
}

/// The algorithm named "operation/algorithm".
inline std::unique_ptr<CollectiveAlgorithm> make(const std::string& qualified) {
  const std::size_t slash = qualified.find('/');
  return builtin().of(*operation_named(qualified.substr(0, slash))).find(qualified.substr(slash + 1)).factory.make();
}

}  // namespace dtsim::comm::testing
