#pragma once
// Which of dtsim's operation classes a GPU kernel's time belongs to, read from its name: the names of
// cuBLAS, CUTLASS, cuDNN, hipBLASLt (Tensile), MIOpen, Composable Kernel, FlashAttention, NCCL and RCCL, and
// PyTorch's own kernels.

#include "sim/traces/kineto_trace.hpp"

#include <array>
#include <cstddef>
#include <string_view>

namespace dtsim::traces {

enum class KernelClass {
  gemm,           ///< matrix products
  attention,      ///< fused attention (FlashAttention, fused multi-head attention)
  convolution,    ///< convolutions, forward and backward
  memory_bound,   ///< elementwise, normalization, reduction, softmax, optimizer, layout kernels
  copy,           ///< memcpy and memset
  communication,  ///< NCCL and RCCL collectives and point-to-point transfers
  unrecognised,   ///< a name none of the above matches: timed with the memory-bound kernels
};

inline constexpr std::size_t kKernelClasses = 7;

/// What the report calls each class, in the enum's order.
inline constexpr std::array<std::string_view, kKernelClasses> kKernelClassNames{
    "matrix products",  "attention",     "convolutions",        "memory-bound kernels",
    "copies and fills", "communication", "unrecognised kernels"};

inline std::string_view name_of(KernelClass c) { return kKernelClassNames[static_cast<std::size_t>(c)]; }

/// The class of a kernel named `name` (copies and fills are told by their kind, not their name).
KernelClass classify_kernel(std::string_view name);

/// The class of `activity` of `trace`.
KernelClass classify(const KinetoTrace& trace, const GpuActivity& activity);

}  // namespace dtsim::traces
