#include "sim/runtime/model_parallel/share_assembly.hpp"

namespace dtsim::runtime {

std::shared_ptr<ShareAssembly> make_share_assembly(const TrainingSetup& setup) {
  auto out = std::make_shared<ShareAssembly>();
  out->whole = setup.model().initial_parameters();
  return out;
}

void finish_share(const TrainingContext& context, ShareAssembly& assembly, std::int64_t iteration) {
  if (++assembly.finished[iteration] == context.scenario->cluster.workers) {
    assembly.finished.erase(iteration);
    after_iteration(context, iteration, assembly.whole);
  }
}

}  // namespace dtsim::runtime
