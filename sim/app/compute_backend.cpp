#include "sim/app/compute_backend.hpp"

#include "models/dense_classifier.hpp"

#ifdef DTSIM_HAVE_CUDA
#include "backends/cuda/cuda_dense.hpp"
#endif

#include <fmt/format.h>

namespace dtsim::app {
namespace {

/// The models the CUDA backend computes: the dense classifiers.
bool runs_on_cuda(const std::string& model) { return model == "softmax_regression" || model == "mlp"; }

}  // namespace

bool built_with_cuda() {
#ifdef DTSIM_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_devices() {
#ifdef DTSIM_HAVE_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

void check_backend(const scenario::Scenario& s, core::DiagnosticSink& sink) {
  if (s.training.backend != scenario::Backend::Cuda) return;
  const core::SourcePosition& at = s.training.backend_at;
  if (!built_with_cuda()) {
    sink.error(at, "training.backend", "this dtsim was built without the CUDA backend (no nvcc when it was built)",
               "build where the CUDA toolkit is installed (/usr/local/cuda), or use backend: auto or cpu");
  } else if (cuda_devices() == 0) {
    sink.error(at, "training.backend", "no CUDA device is visible to this process",
               "use backend: auto (the CPU when there is no device) or cpu");
  } else if (!s.model.is_profile() && !runs_on_cuda(s.model.kind.value)) {
    sink.error(at, "training.backend",
               fmt::format("the CUDA backend computes softmax_regression and mlp, and the model is '{}'",
                           s.model.kind.value),
               "use backend: auto or cpu");
  }
}

std::string apply_backend(const scenario::Scenario& s, models::TrainableModel& model) {
  if (s.training.backend == scenario::Backend::Cpu || !runs_on_cuda(s.model.kind.value)) return "";
  auto* dense = dynamic_cast<models::DenseClassifier*>(&model);
  if (dense == nullptr) return "";
#ifdef DTSIM_HAVE_CUDA
  if (cuda_devices() > 0) {
    dense->set_accelerator(cuda::make_dense_accelerator(dense->widths(), dense->tanh()));
    return "";
  }
  return "training.backend auto: no CUDA device visible, computing on the CPU";
#else
  return "training.backend auto: this dtsim was built without CUDA, computing on the CPU";
#endif
}

}  // namespace dtsim::app
