#include "sim/checks/compute_backend.hpp"

#include "models/dense_classifier.hpp"
#include "sim/checks/cuda_backend_loader.hpp"

#include <fmt/format.h>

namespace dtsim::checks {
namespace {

struct LoadedBackend {
  std::unique_ptr<CudaBackendModule> module;
  std::string why;  ///< why it is not loaded
};

/// The module, loaded by the first run that may compute on CUDA and kept for the process (what it loads
/// cannot be unloaded while accelerators it made are alive).
const LoadedBackend& loaded_backend() {
  static const LoadedBackend backend = [] {
    LoadedBackend loaded;
    loaded.module = CudaBackendModule::load(loaded.why);
    return loaded;
  }();
  return backend;
}

}  // namespace

bool built_with_cuda() { return loaded_backend().module != nullptr; }

int cuda_devices() { return built_with_cuda() ? loaded_backend().module->device_count() : 0; }

void check_backend(const scenario::Scenario& s, const models::ModelRegistry& models, core::DiagnosticSink& sink) {
  if (s.training.backend != scenario::Backend::Cuda) return;
  const core::SourcePosition& at = s.training.backend_at;
  if (!built_with_cuda()) {
    sink.error(at, "training.backend", loaded_backend().why,
               "build where the CUDA toolkit is installed (/usr/local/cuda), or use backend: auto or cpu");
  } else if (cuda_devices() == 0) {
    sink.error(at, "training.backend", "no CUDA device is visible to this process",
               "use backend: auto (the CPU when there is no device) or cpu");
  } else if (!s.model.timing_only && !models.find(s.model.kind.value).factory.runs_on_cuda) {
    const std::string computed = models::model_names(models, [](const models::ModelPlugin& m) { return m.runs_on_cuda; });
    sink.error(at, "training.backend",
               fmt::format("the CUDA backend computes {}, and the model is '{}'", computed, s.model.kind.value),
               "use backend: auto or cpu");
  }
}

std::string apply_backend(const scenario::Scenario& s, const models::ModelRegistry& models, models::TrainableModel& model) {
  if (s.training.backend == scenario::Backend::Cpu || !models.find(s.model.kind.value).factory.runs_on_cuda) return "";
  auto* dense = dynamic_cast<models::DenseClassifier*>(&model);
  if (dense == nullptr) return "";
  if (!built_with_cuda()) return fmt::format("training.backend auto: {}; computing on the CPU", loaded_backend().why);
  if (cuda_devices() == 0) return "training.backend auto: no CUDA device visible, computing on the CPU";
  dense->set_accelerator(loaded_backend().module->make_dense(dense->widths(), dense->tanh()));
  return "";
}

}  // namespace dtsim::checks
