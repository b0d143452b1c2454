#pragma once
// A dense classifier's math computed somewhere else than Eigen on the CPU (a GPU).

#include <cstddef>
#include <span>

namespace dtsim::models {

class DenseAccelerator {
 public:
  virtual ~DenseAccelerator() = default;
  /// The mean softmax cross-entropy of `rows` samples (`inputs`: rows x features, row-major; `labels`: the
  /// class of each) under `parameters` (DenseClassifier's layout); the mean gradient into `gradient`
  /// (same length as `parameters`). Holds device buffers, so it is not for concurrent callers; the actors of
  /// one SimGrid run take turns.
  virtual double loss_and_gradient(std::span<const float> parameters, std::span<const float> inputs,
                                   std::span<const int> labels, std::size_t rows, std::span<float> gradient) = 0;
};

}  // namespace dtsim::models
