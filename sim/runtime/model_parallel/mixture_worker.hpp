#pragma once

#include "sim/runtime/model_parallel/share_assembly.hpp"

#include <memory>

namespace dtsim::runtime {

/// One device of a mixture-of-experts classifier (models::MoeClassifier) trained for real under data x expert
/// parallelism. It holds the trunk, the gate and 1/expert of the experts. Per micro-batch of its replica's
/// batch it runs the trunk and the gate, sends each token to the devices of its expert group holding its
/// chosen experts by a real all-to-all (dispatch), runs its experts on the tokens it received and returns
/// their outputs (combine); backward, the outputs' gradients go to the experts and the tokens' gradients
/// come back the same way. Each step, the trunk's and the gate's gradients are summed over every replica,
/// the experts' over the replicas holding the same experts, and each device applies the optimizer to its
/// share. The device that finishes a step last records its evaluation from the assembled parameters.
class MixtureWorker {
 public:
  MixtureWorker(TrainingContext context, int rank, std::shared_ptr<ShareAssembly> assembly);
  void operator()();

 private:
  TrainingContext context_;
  int rank_;
  std::shared_ptr<ShareAssembly> assembly_;
};

}  // namespace dtsim::runtime
