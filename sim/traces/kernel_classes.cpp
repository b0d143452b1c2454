#include "sim/traces/kernel_classes.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>

namespace dtsim::traces {
namespace {

bool contains_any(const std::string& lower, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(),
                     [&](std::string_view part) { return lower.find(part) != std::string::npos; });
}

}  // namespace

KernelClass classify_kernel(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Order matters: a convolution's kernel often says gemm (implicit GEMM), an attention kernel too.
  if (contains_any(lower, {"nccl", "rccl", "msccl"})) return KernelClass::communication;
  if (contains_any(lower, {"flash", "fmha", "attention", "attn", "sdpa"})) return KernelClass::attention;
  // cuDNN (scudnn, fprop/dgrad/wgrad, implicit GEMM), MIOpen (igemm_*_gtc, naive_conv), Composable Kernel's
  // backward weight and data kernels, Winograd.
  if (contains_any(lower, {"conv", "scudnn", "fprop", "dgrad", "wgrad", "implicit", "winograd", "igemm_", "_gtc",
                           "bwd_weight", "bwd_data", "xdlops_fwd"})) {
    return KernelClass::convolution;
  }
  // cuBLAS (gemm, gemv, nvjet on Hopper and later), CUTLASS, hipBLASLt and rocBLAS (Tensile's Cijk_),
  // Triton's templated products.
  if (contains_any(lower, {"gemm", "gemv", "cutlass", "cublas", "nvjet", "cijk_", "xmma", "hipblaslt", "triton_mm",
                           "triton_tem", "matmul", "_bmm", "splitk"})) {
    return KernelClass::gemm;
  }
  if (contains_any(
          lower,
          {"elementwise", "vectorized", "unrolled",   "reduce",       "norm",   "softmax", "functor", "copy",
           "transpose",   "nchwtonhwc", "nhwctonchw", "multi_tensor", "adam",   "sgd",     "fill",    "cat",
           "index",       "gather",     "scatter",    "embedding",    "pool",   "relu",    "clamp",   "gelu",
           "silu",        "dropout",    "bn_",        "batch_norm",   "mse",    "loss",    "add",     "mul",
           "tensorop",    "triton_",    "sort",       "arange",       "cumsum", "where",   "rope",    "rotary"})) {
    return KernelClass::memory_bound;
  }
  return KernelClass::unrecognised;
}

KernelClass classify(const KinetoTrace& trace, const GpuActivity& activity) {
  if (activity.kind != ActivityKind::kernel) return KernelClass::copy;
  const KernelClass by_name = classify_kernel(trace.names[static_cast<std::size_t>(activity.name)]);
  const bool product =
      by_name == KernelClass::gemm || by_name == KernelClass::attention || by_name == KernelClass::convolution;
  const auto index = static_cast<std::size_t>(&activity - trace.activities.data());
  if (!product || index >= trace.contexts.size()) return by_name;
  // A product kernel takes the class of the operator that launched it: cuDNN's convolutions run as CUTLASS
  // matrix products, and their names say gemm.
  switch (trace.contexts[index]) {
    case KernelContext::gemm:
      return KernelClass::gemm;
    case KernelContext::attention:
      return KernelClass::attention;
    case KernelContext::convolution:
      return KernelClass::convolution;
    case KernelContext::none:
      return by_name;
  }
  return by_name;
}

}  // namespace dtsim::traces
