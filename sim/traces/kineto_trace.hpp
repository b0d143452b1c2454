#pragma once
// What dtsim reads of a PyTorch profiler (Kineto) trace in Chrome's trace format: the steps the profiler
// marked (ProfilerStep#N on the host), the GPU's kernels, copies and fills, and the host call that launched
// each (by correlation id). NVIDIA (CUDA) and AMD (ROCm, whose HIP calls Kineto files as cuda_runtime)
// traces alike; plain or gzipped.

#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace dtsim::traces {

/// The kind of product a host operator computes, which its kernels are (cuDNN runs many convolutions as
/// CUTLASS matrix products).
enum class KernelContext { none, gemm, attention, convolution };

/// What ran on the GPU.
enum class ActivityKind { kernel, memcpy, memset };

/// One kernel, copy or fill on the GPU, times in microseconds of the trace's clock.
struct GpuActivity {
  ActivityKind kind = ActivityKind::kernel;
  int name = 0;  ///< index into KinetoTrace::names
  double start_us = 0.0;
  double duration_us = 0.0;
  std::int64_t correlation = -1;  ///< the launching host call's; -1 when the trace gives none
  std::int64_t stream = 0;
  std::int64_t device = 0;
};

/// A host operator that launches products (a convolution, a matrix product, attention), from its `cpu_op`
/// event: the kernels launched inside it compute that product, whatever library named them.
struct ProductOperator {
  KernelContext kind = KernelContext::none;
  double start_us = 0.0;
  double end_us = 0.0;
  std::int64_t thread = 0;
};

/// A convolution's or linear layer's host operator (`aten::convolution`, `aten::linear`) with its weight's
/// shape, where the trace recorded input shapes (torch.profiler's record_shapes).
struct ShapedProduct {
  KernelContext kind = KernelContext::none;  ///< convolution or gemm
  double start_us = 0.0;
  std::vector<std::int64_t> weight;  ///< [out, in / groups, kernel...] or [out, in]
  bool bias = false;                 ///< a linear layer given its bias
  std::int64_t thread = 0;
  /// The innermost module whose forward pass ran it (the trace's `module: NAME` annotations, which
  /// tools/capture_trace.py writes), an index into KinetoTrace::module_names; -1 where none was open.
  int module = -1;
};

/// A module's forward pass, as a host annotation `module: NAME` marked it.
struct ModuleSpan {
  int name = 0;  ///< index into KinetoTrace::module_names
  double start_us = 0.0;
  double end_us = 0.0;
  std::int64_t thread = 0;
};

/// The host annotations that name the module running: `module: NAME` (tools/capture_trace.py's).
inline constexpr const char* kModuleMarker = "module: ";

/// A host call that launched GPU work.
struct Launch {
  double at_us = 0.0;
  std::int64_t thread = 0;
};

/// A step as the profiler (or the user's annotation) marked it on the host (`ProfilerStep#N`).
struct ProfiledStep {
  std::string name;
  double start_us = 0.0;
  double duration_us = 0.0;
};

struct KinetoTrace {
  std::vector<std::string> names;  ///< every distinct activity name, once
  std::vector<GpuActivity> activities;
  /// Per activity, the product its launching operator computes (filled in by read_kineto_trace).
  std::vector<KernelContext> contexts;
  std::vector<ProfiledStep> steps;  ///< in time order
  /// When each correlation id's host call (cudaLaunchKernel, hipExtModuleLaunchKernel, cudaMemcpyAsync, ...)
  /// began.
  std::unordered_map<std::int64_t, Launch> launches;
  /// The operators that compute products, in no order.
  std::vector<ProductOperator> products;
  /// The convolutions and linear layers with their weights' shapes, in no order; empty without shapes. Each
  /// names its module where the trace has module annotations.
  std::vector<ShapedProduct> shaped;
  /// The module annotations, in no order (at most kMaxModuleSpans); empty where the trace has none.
  std::vector<ModuleSpan> modules;
  std::vector<std::string> module_names;  ///< every distinct module name, once, without the marker
  /// `deviceProperties[].name` by device id (the traced GPU's model), when the trace has them.
  std::unordered_map<std::int64_t, std::string> device_names;
};

/// The GPU activities a trace may hold at most: some 60 bytes each, 3 GiB in all. A longer trace is refused
/// with a hint to profile fewer steps.
inline constexpr std::size_t kMaxTraceActivities = 50'000'000;

/// The module annotations kept at most (32 bytes each): a step of a model of thousands of modules, for
/// thousands of steps. Those beyond are not read.
inline constexpr std::size_t kMaxModuleSpans = 10'000'000;

/// Whether `path` holds JSON (its first character other than white space is '{'), inflated if gzipped: a
/// profiler trace rather than a table or nccl-tests output.
bool is_json_trace(const std::filesystem::path& path);

/// The host annotations that mark steps unless told otherwise: torch.profiler's.
inline constexpr const char* kProfilerStepMarker = "ProfilerStep#";

/// Reads the trace at `path`, its steps being the host annotations (or operators) whose names begin with
/// `step_marker`. Throws core::InputError naming the file (and the line and column of a JSON error) when it
/// cannot be read, is no JSON, has no `traceEvents` or no GPU activity.
KinetoTrace read_kineto_trace(const std::filesystem::path& path, const std::string& step_marker = kProfilerStepMarker);

}  // namespace dtsim::traces
