#pragma once
// What one device holds while training: its share of the parameters, the gradients, the optimizer state
// and the activations kept for the backward pass. The byte counts follow ZeRO (Rajbhandari et al. 2020):
// in mixed precision a parameter is 2 bytes of weight, 2 of gradient and 4 x (1 + optimizer values) of
// fp32 state (the master weight, then momentum, variance, ...): 16 bytes per parameter under Adam.

#include <cstddef>

namespace dtsim::models {

struct MemoryPlan {
  double parameters = 0.0;                  ///< the model's, Psi
  double activation_bytes_per_sample = 0.0; ///< kept for the backward pass, at fp32
  std::size_t samples = 0;                  ///< whose activations are held at once (a worker's batch)
  int data_parallel = 1;                    ///< devices ZeRO partitions over, N
  int zero_stage = 0;                       ///< 1: optimizer state, 2: also gradients, 3: also parameters
  bool mixed_precision = false;             ///< 16-bit weights, gradients and activations, fp32 master weights
  /// Bytes of a gradient in its buffer; 0: a weight's (2 under mixed precision, 4 in fp32). Megatron-Core
  /// accumulates a BF16 run's gradients in FP32: 4.
  double gradient_bytes = 0.0;
  int optimizer_values = 0;                 ///< state per parameter: 0 sgd, 1 momentum, 2 adam
  /// Of `parameters`, a mixture's routed experts held under expert parallelism, whose state ZeRO partitions
  /// over the replicas holding the same experts, `expert_data_parallel` of them (data / expert).
  double expert_parameters = 0.0;
  int expert_data_parallel = 1;
};

/// Bytes per device, each part after ZeRO's partitioning.
struct MemoryFootprint {
  double parameters = 0.0;
  double gradients = 0.0;
  double optimizer = 0.0;
  double activations = 0.0;

  [[nodiscard]] double total() const { return parameters + gradients + optimizer + activations; }
};

/// Throws std::invalid_argument for a stage outside 0..3 or fewer than one device.
MemoryFootprint memory_footprint(const MemoryPlan& plan);

}  // namespace dtsim::models
