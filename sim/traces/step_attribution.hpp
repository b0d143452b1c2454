#pragma once
// Where a profiled step's time went on the GPU: each kernel class's time, the kernels that ran together,
// the communication no computation hid, and the gaps in which the GPU waited on its host.

#include "sim/traces/kernel_classes.hpp"
#include "sim/traces/kineto_trace.hpp"

#include <array>
#include <string>
#include <vector>

namespace dtsim::traces {

/// A gap between one GPU activity's end and the next one's start shorter than this is the host launching
/// the next kernel; a longer one, the GPU idle while the host does other work (data loading, logging,
/// waiting). No published figure draws the line: 20 us is a few launch latencies (about 5 us each on CUDA).
inline constexpr double kLaunchGapUs = 20.0;

/// One step's GPU time, in seconds.
struct StepTime {
  std::string name;
  double host_s = 0.0;                           ///< the step as the host marked it: what one iteration takes
  std::array<double, kKernelClasses> class_s{};  ///< each class's activities' summed durations
  std::array<int, kKernelClasses> class_count{};
  /// From the first computing activity's start to the last one's end (communication is not computing).
  double span_s = 0.0;
  double computing_s = 0.0;      ///< when some computing activity ran (their union)
  double communicating_s = 0.0;  ///< in the span, when only communication ran
  double launch_gaps_s = 0.0;    ///< in the span, nothing running, for less than kLaunchGapUs at a time
  double idle_gaps_s = 0.0;      ///< in the span, nothing running, for longer

  /// What the step's computation took on its own: the span less the communication alone in it.
  [[nodiscard]] double alone_s() const { return span_s - communicating_s; }
};

/// A kernel name's share of the time of the steps.
struct KernelTotal {
  std::string name;
  KernelClass kind = KernelClass::unrecognised;
  double seconds = 0.0;
  int count = 0;
};

/// The GPU's time over the profiled window (from the first step's first computing activity to the last step's
/// last), divided by the steps: where the GPU runs behind the host, one step's kernels run among the next
/// one's, and only the window as a whole says what a step took.
struct WindowTime {
  double span_s = 0.0;
  double computing_s = 0.0;      ///< some step's computing activity running
  double communicating_s = 0.0;  ///< only communication running
  double launch_gaps_s = 0.0;    ///< nothing running, for less than kLaunchGapUs at a time
  double idle_gaps_s = 0.0;      ///< nothing running, for longer

  /// A step's computation on its own: the span less the communication alone in it.
  [[nodiscard]] double alone_s() const { return span_s - communicating_s; }
};

struct StepAttribution {
  WindowTime window;            ///< per step, over the steps' window
  std::string device;           ///< the traced GPU's model, or "" when the trace does not say
  std::vector<StepTime> steps;  ///< the steps with GPU activity, in time order
  int activities = 0;           ///< of the traced GPU
  /// Activities whose launch the trace does not hold (launched before it began) or that fall in no step.
  int unattributed = 0;
  double unattributed_s = 0.0;
  int other_devices = 0;             ///< GPUs of the trace besides the one attributed (the busiest)
  std::vector<KernelTotal> kernels;  ///< over all steps, longest first

  /// The mean over the steps of `field`.
  [[nodiscard]] double mean(double StepTime::*field) const;
  /// The mean over the steps of a class's time.
  [[nodiscard]] double mean_of(KernelClass c) const;
};

/// Attributes the GPU activities of `trace` to its steps: an activity belongs to the step whose host span
/// holds its launch (the GPU may run far behind the host). Throws core::InputError (naming `source`) when
/// the trace marks no step, or none of its steps launched anything on the GPU.
StepAttribution attribute_steps(const KinetoTrace& trace, const std::string& source, const std::string& step_marker);

}  // namespace dtsim::traces
