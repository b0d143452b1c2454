#include "sim/traces/step_attribution.hpp"

#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace dtsim::traces {
namespace {

using Interval = std::pair<double, double>;  // start and end, microseconds

/// The union of `intervals` clipped to [from, to]: its length, and the gaps in it (those shorter than
/// kLaunchGapUs, and the rest), the gaps before its first and after its last interval included.
struct Coverage {
  double busy_us = 0.0;
  double launch_gaps_us = 0.0;
  double idle_gaps_us = 0.0;
};

Coverage coverage(std::vector<Interval> intervals, double from, double to) {
  Coverage out;
  std::sort(intervals.begin(), intervals.end());
  double reached = from;  // the end of the union so far
  const auto gap = [&](double length) {
    if (length > 0.0) (length < kLaunchGapUs ? out.launch_gaps_us : out.idle_gaps_us) += length;
  };
  for (const Interval& i : intervals) {
    const double start = std::max(i.first, from);
    const double end = std::min(i.second, to);
    if (end <= reached) continue;
    if (start > reached) gap(start - reached);
    out.busy_us += end - std::max(start, reached);
    reached = end;
  }
  gap(to - reached);
  return out;
}

/// The device with the most GPU time: the trace of one rank names one, a single process may drive several.
std::int64_t busiest_device(const KinetoTrace& trace, int& devices) {
  std::map<std::int64_t, double> time;
  for (const GpuActivity& a : trace.activities) time[a.device] += a.duration_us;
  devices = static_cast<int>(time.size());
  return std::max_element(time.begin(), time.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

/// The index of the step whose host span holds `at`, or -1.
int step_at(const std::vector<ProfiledStep>& steps, double at) {
  const auto after =
      std::upper_bound(steps.begin(), steps.end(), at, [](double t, const ProfiledStep& s) { return t < s.start_us; });
  if (after == steps.begin()) return -1;
  const auto& step = *(after - 1);
  return at <= step.start_us + step.duration_us ? static_cast<int>(after - 1 - steps.begin()) : -1;
}

StepTime time_of_step(const KinetoTrace& trace, const ProfiledStep& step,
                      const std::vector<const GpuActivity*>& activities) {
  StepTime out;
  out.name = step.name;
  out.host_s = step.duration_us * 1e-6;
  std::vector<Interval> all;
  std::vector<Interval> computing;
  for (const GpuActivity* a : activities) {
    const KernelClass c = classify(trace, *a);
    out.class_s[static_cast<std::size_t>(c)] += a->duration_us * 1e-6;
    out.class_count[static_cast<std::size_t>(c)] += 1;
    all.emplace_back(a->start_us, a->start_us + a->duration_us);
    if (c != KernelClass::communication) computing.emplace_back(a->start_us, a->start_us + a->duration_us);
  }
  if (computing.empty()) return out;
  double from = computing.front().first, to = computing.front().second;
  for (const Interval& i : computing) from = std::min(from, i.first), to = std::max(to, i.second);
  const Coverage any = coverage(all, from, to);
  const Coverage busy = coverage(computing, from, to);
  out.span_s = (to - from) * 1e-6;
  out.computing_s = busy.busy_us * 1e-6;
  out.communicating_s = (any.busy_us - busy.busy_us) * 1e-6;
  out.launch_gaps_s = any.launch_gaps_us * 1e-6;
  out.idle_gaps_s = any.idle_gaps_us * 1e-6;
  return out;
}

/// The steps' activities' time over their window, per step.
WindowTime window_time(const KinetoTrace& trace, const std::vector<std::vector<const GpuActivity*>>& by_step,
                       std::size_t steps) {
  WindowTime out;
  std::vector<Interval> all;
  std::vector<Interval> computing;
  for (const auto& activities : by_step) {
    for (const GpuActivity* a : activities) {
      all.emplace_back(a->start_us, a->start_us + a->duration_us);
      if (classify(trace, *a) != KernelClass::communication) computing.push_back(all.back());
    }
  }
  if (computing.empty() || steps == 0) return out;
  double from = computing.front().first, to = computing.front().second;
  for (const Interval& i : computing) from = std::min(from, i.first), to = std::max(to, i.second);
  const Coverage any = coverage(all, from, to);
  const Coverage busy = coverage(computing, from, to);
  const double per_step = 1e-6 / static_cast<double>(steps);
  out.span_s = (to - from) * per_step;
  out.computing_s = busy.busy_us * per_step;
  out.communicating_s = (any.busy_us - busy.busy_us) * per_step;
  out.launch_gaps_s = any.launch_gaps_us * per_step;
  out.idle_gaps_s = any.idle_gaps_us * per_step;
  return out;
}

}  // namespace

double StepAttribution::mean(double StepTime::*field) const {
  if (steps.empty()) return 0.0;
  return std::accumulate(steps.begin(), steps.end(), 0.0, [&](double t, const StepTime& s) { return t + s.*field; }) /
         static_cast<double>(steps.size());
}

double StepAttribution::mean_of(KernelClass c) const {
  if (steps.empty()) return 0.0;
  double total = 0.0;
  for (const StepTime& s : steps) total += s.class_s[static_cast<std::size_t>(c)];
  return total / static_cast<double>(steps.size());
}

StepAttribution attribute_steps(const KinetoTrace& trace, const std::string& source, const std::string& step_marker) {
  const auto refuse = [&](std::string message, std::string hint) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(source), "", std::move(message), std::move(hint)});
  };
  if (trace.steps.empty()) {
    refuse(fmt::format("the trace marks no step: no host annotation's name begins with '{}'", step_marker),
           "profile with torch.profiler.profile(schedule=...) and call prof.step() after each step, or name your "
           "own step annotation with --step-marker");
  }
  StepAttribution out;
  const std::int64_t device = busiest_device(trace, out.other_devices);
  out.other_devices -= 1;
  if (const auto name = trace.device_names.find(device); name != trace.device_names.end()) out.device = name->second;
  std::vector<std::vector<const GpuActivity*>> by_step(trace.steps.size());
  std::map<std::pair<int, KernelClass>, std::pair<double, int>> totals;
  for (const GpuActivity& a : trace.activities) {
    if (a.device != device) continue;
    ++out.activities;
    const auto launched = trace.launches.find(a.correlation);
    const int step = launched == trace.launches.end() ? -1 : step_at(trace.steps, launched->second.at_us);
    if (step < 0) {
      ++out.unattributed;
      out.unattributed_s += a.duration_us * 1e-6;
      continue;
    }
    by_step[static_cast<std::size_t>(step)].push_back(&a);
    auto& total = totals[{a.name, classify(trace, a)}];
    total.first += a.duration_us * 1e-6;
    total.second += 1;
  }
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    if (by_step[s].empty()) continue;
    StepTime step = time_of_step(trace, trace.steps[s], by_step[s]);
    if (step.span_s > 0.0) out.steps.push_back(std::move(step));
  }
  out.window = window_time(trace, by_step, out.steps.size());
  if (out.steps.empty()) {
    refuse(fmt::format("none of the trace's {} steps computed anything on the GPU", trace.steps.size()),
           "profile steps that train (after the profiler's wait and warm-up steps)");
  }
  for (const auto& [key, total] : totals) {
    out.kernels.push_back({trace.names[static_cast<std::size_t>(key.first)], key.second, total.first, total.second});
  }
  std::sort(out.kernels.begin(), out.kernels.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.name < b.name;
  });
  return out;
}

}  // namespace dtsim::traces
