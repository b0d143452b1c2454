#include "sim/app/trace_calibration.hpp"

#include "models/device_share.hpp"
#include "sim/app/calibration_search.hpp"
#include "sim/app/iteration_simulation.hpp"
#include "sim/app/layer_matching.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/compute/device_cost_model.hpp"
#include "sim/scenario/parallel_layout.hpp"
#include "sim/scenario/scenario_reader.hpp"
#include "sim/traces/step_attribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace dtsim::app {
namespace {

/// One GPU's share of the scenario's model, as each of its steps computes it.
struct ModelSide {
  scenario::Scenario scenario;
  models::ModelProfile layers;  ///< the device's share (tensor and context splits applied)
  double batch = 0.0;           ///< samples per micro-batch
  int microbatches = 1;
};

ModelSide model_side(const std::filesystem::path& file, const checks::Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  ModelSide out{scenario::read_scenario_file(format, file), {}, 0.0, 1};
  const scenario::Scenario& s = out.scenario;
  checks::check_scenario(s, registries);
  const runtime::TrainingSetup setup = checks::resolve_scenario(s, registries);
  if (!runtime::is_timing_only(setup.mode)) {
    refuse_input(file.string(), "model.kind",
                 "a profiled step calibrates a layer table, and this scenario trains its model",
                 "give a scenario whose model is a profile (model.kind: profile:...), as the traced model is");
  }
  if (s.training.parallelism.pipeline > 1) {
    refuse_input(file.string(), "training.parallelism.pipeline",
                 "a profiled step of one GPU calibrates a device that computes its whole share of each layer",
                 "calibrate on the scenario without pipeline stages, then include the fragment in the pipelined one");
  }
  out.layers = models::device_share(setup.profile(), scenario::device_share_of(s.training));
  out.microbatches = std::max(1, s.training.parallelism.microbatches);
  out.batch = static_cast<double>(s.training.batch_per_worker) / out.microbatches;
  return out;
}

/// The traced seconds a step spends in what each of dtsim's operation classes times: matrix products,
/// attention and convolutions by their kernels; the elementwise class the memory-bound kernels, the copies
/// and fills, and the kernels no name rule recognised.
std::array<double, models::kOpClasses> traced_by_op_class(const traces::StepAttribution& a) {
  using traces::KernelClass;
  std::array<double, models::kOpClasses> out{};
  out[static_cast<std::size_t>(models::OpClass::Gemm)] = a.mean_of(KernelClass::gemm);
  out[static_cast<std::size_t>(models::OpClass::Attention)] = a.mean_of(KernelClass::attention);
  out[static_cast<std::size_t>(models::OpClass::Convolution)] = a.mean_of(KernelClass::convolution);
  out[static_cast<std::size_t>(models::OpClass::Elementwise)] =
      a.mean_of(KernelClass::memory_bound) + a.mean_of(KernelClass::copy) + a.mean_of(KernelClass::unrecognised);
  return out;
}

/// dtsim's seconds per step in each operation class on `device` (the elementwise class holding the
/// memory-bound kernels between the products too).
std::array<double, models::kOpClasses> modelled_by_op_class(const ModelSide& side,
                                                            const scenario::DeviceProfile& device) {
  const compute::ClassSeconds c = compute::class_seconds(side.layers, side.batch, device);
  std::array<double, models::kOpClasses> out = c.products;
  out[static_cast<std::size_t>(models::OpClass::Elementwise)] += c.kernels;
  for (double& seconds : out) seconds *= side.microbatches;
  return out;
}

/// The share of the traced memory-bound time the layer table must model (at the device's own efficiency) for
/// the elementwise efficiency to be fitted to it. Below it, the table lacks most of those kernels (a ResNet's
/// batch normalizations are FLOPs of its convolution layers): an efficiency fitted to them would slow the
/// memory every roofline reads, and their time goes to the overhead per layer and pass instead. A choice, no
/// published figure.
constexpr double kModelledMemoryShare = 0.25;

/// The classes whose efficiencies are fitted: the products' classes the trace and the model both spend time
/// in; the elementwise class when the model accounts for enough of the trace's memory-bound time.
std::vector<std::size_t> fitted_classes(const std::array<double, models::kOpClasses>& traced,
                                        const std::array<double, models::kOpClasses>& modelled) {
  std::vector<std::size_t> out;
  const auto elementwise = static_cast<std::size_t>(models::OpClass::Elementwise);
  for (std::size_t c = 0; c < models::kOpClasses; ++c) {
    if (traced[c] <= 0.0 || modelled[c] <= 0.0) continue;
    if (c == elementwise && modelled[c] < kModelledMemoryShare * traced[c]) continue;
    out.push_back(c);
  }
  return out;
}

/// `device` with its efficiency of each class in `classes` fitted so that the model's seconds in each match
/// the trace's (least squares on their logarithms: the elementwise class's efficiency also sets the memory
/// bandwidth the others' rooflines use, so the classes are swept in turn until they settle).
scenario::DeviceProfile fit_efficiencies(const ModelSide& side, scenario::DeviceProfile device,
                                         const std::array<double, models::kOpClasses>& traced,
                                         const std::vector<std::size_t>& classes) {
  for (const std::size_t c : classes)
    device.class_efficiency[c] = device.efficiency_of(static_cast<models::OpClass>(c));
  device.layer_overhead_s = 0.0;
  device.efficiency_assumed = false;
  const auto misfit = [&](const scenario::DeviceProfile& d) {
    const std::array<double, models::kOpClasses> modelled = modelled_by_op_class(side, d);
    double total = 0.0;
    for (const std::size_t c : classes) total += std::pow(std::log(modelled[c] / traced[c]), 2);
    return total;
  };
  for (int sweep = 0; sweep < 8; ++sweep) {
    const scenario::DeviceProfile before = device;
    for (const std::size_t c : classes) {
      const double found = golden_minimum(
          [&](double efficiency) {
            scenario::DeviceProfile trial = device;
            trial.class_efficiency[c] = efficiency;
            return misfit(trial);
          },
          1e-3, 1.0, 1e-6);
      device.class_efficiency[c] = found;
    }
    double moved = 0.0;
    for (const std::size_t c : classes) {
      moved = std::max(
          moved, std::abs(*device.class_efficiency[c] - *before.class_efficiency[c]) / *device.class_efficiency[c]);
    }
    if (moved < 1e-5) break;
  }
  return device;
}

/// Every worker's device named like `fitted` takes its fitted figures.
scenario::Scenario with_device(scenario::Scenario s, const scenario::DeviceProfile& fitted) {
  const auto take = [&](scenario::DeviceProfile& d) {
    if (d.name != fitted.name) return;
    d.class_efficiency = fitted.class_efficiency;
    d.efficiency_assumed = fitted.efficiency_assumed;
    d.layer_overhead_s = fitted.layer_overhead_s;
  };
  each_device(s, take);
  return s;
}

/// The host's overhead per layer and pass that makes the simulated iteration `target` seconds, by the
/// secant method (the iteration grows by about one pass per layer and pass for each second of overhead).
double fit_overhead(const ModelSide& side, scenario::DeviceProfile& device, double target, double passes,
                    const checks::Registries& registries, double& predicted) {
  const auto simulate = [&](double overhead) {
    device.layer_overhead_s = overhead;
    return simulate_iteration(with_device(side.scenario, device), registries);
  };
  double low = 0.0, at_low = simulate(0.0);
  predicted = at_low;
  if (at_low >= target) return 0.0;
  double high = (target - at_low) / passes, at_high = simulate(high);
  for (int step = 0; step < 6 && std::abs(at_high / target - 1.0) > 1e-6 && at_high != at_low; ++step) {
    const double next = std::max(0.0, high + (target - at_high) * (high - low) / (at_high - at_low));
    low = high, at_low = at_high;
    high = next, at_high = simulate(high);
  }
  device.layer_overhead_s = high;
  predicted = at_high;
  return high;
}

std::string ms(double seconds) { return fmt::format("{:.3f}", seconds * 1e3); }

std::string percent_of(double part, double whole) {
  return whole > 0.0 ? fmt::format("{:.1f}%", 100.0 * part / whole) : "-";
}

std::string table_row(const std::string& what, const std::string& count, double seconds, double step) {
  return fmt::format("{:<52} {:>8} {:>10} {:>8}\n", what, count, ms(seconds), percent_of(seconds, step));
}

std::string attribution_table(const traces::StepAttribution& a, const std::string& source) {
  std::string names;
  for (const traces::StepTime& s : a.steps)
    names += fmt::format("{}{} {} ms", names.empty() ? "" : ", ", s.name, ms(s.host_s));
  const double step = a.mean(&traces::StepTime::host_s);
  std::string out =
      fmt::format("profiled: {} ({}), {} step(s): {}; mean {} ms\n\n", source,
                  a.device.empty() ? "GPU model not named in the trace" : a.device, a.steps.size(), names, ms(step));
  out += fmt::format("{:<52} {:>8} {:>10} {:>8}\n", "what the GPU did in a step (mean)", "kernels", "ms", "of step");
  double computing = 0.0;
  for (std::size_t c = 0; c < traces::kKernelClasses; ++c) {
    const auto kind = static_cast<traces::KernelClass>(c);
    if (kind == traces::KernelClass::communication) continue;
    double count = 0.0;
    for (const traces::StepTime& s : a.steps) count += s.class_count[c];
    computing += a.mean_of(kind);
    out += table_row("  " + std::string(traces::name_of(kind)), fmt::format("{:.0f}", count / a.steps.size()),
                     a.mean_of(kind), step);
  }
  const traces::WindowTime& w = a.window;
  const double busy = w.computing_s;
  out += table_row("  less computing kernels running together", "", busy - computing, step);
  out += table_row("computing", "", busy, step);
  out += table_row("communication alone (no kernel computing beside it)", "", w.communicating_s, step);
  out +=
      table_row(fmt::format("gaps under {:g} us (kernel launches)", traces::kLaunchGapUs), "", w.launch_gaps_s, step);
  out += table_row("longer gaps (the GPU idle, waiting on its host)", "", w.idle_gaps_s, step);
  out += table_row("= the steps' window, a step (first kernel to last)", "", w.span_s, step);
  out += table_row("the host's step beyond that window (GPU lagging: -)", "", step - w.span_s, step);
  double communication = 0.0;
  for (const traces::StepTime& s : a.steps)
    communication += s.class_count[static_cast<std::size_t>(traces::KernelClass::communication)];
  out += fmt::format("communication kernels: {:.0f} a step, {} ms (running beside computation or alone)\n",
                     communication / a.steps.size(), ms(a.mean_of(traces::KernelClass::communication)));
  out += fmt::format(
      "not attributed: {} of the GPU's {} activities ({} ms), launched before the trace or outside its "
      "steps\n",
      a.unattributed, a.activities, ms(a.unattributed_s));
  if (a.other_devices > 0)
    out += fmt::format("the trace holds {} other GPU(s): the busiest one is attributed\n", a.other_devices);
  out += "\nlongest kernels over the steps:\n";
  for (std::size_t k = 0; k < std::min<std::size_t>(a.kernels.size(), 8); ++k) {
    const traces::KernelTotal& t = a.kernels[k];
    const std::string name = t.name.size() > 60 ? t.name.substr(0, 57) + "..." : t.name;
    out += fmt::format("  {:<60} {:<21} {:>5} x {:>9} ms\n", name, traces::name_of(t.kind), t.count, ms(t.seconds));
  }
  return out + "\n";
}

}  // namespace

bool is_profiler_trace(const std::filesystem::path& path) { return traces::is_json_trace(path); }

Calibration calibrate_from_trace(const CalibrateOptions& options, const checks::Registries& registries) {
  if (!options.scenario) {
    refuse_input(
        "dtsim calibrate", "--scenario", "a profiled step needs the scenario of the model it traced",
        "add --scenario FILE: one GPU's scenario (a profile:... model, its batch and precision) on the traced device");
  }
  if (!options.fit.empty()) {
    refuse_input("dtsim calibrate", "--fit", "a profiled step fits the scenario's device by itself",
                 "leave out --fit: the trace's kernels say which efficiencies to fit");
  }
  const std::filesystem::path& trace_path = options.measurements;
  const traces::KinetoTrace trace = traces::read_kineto_trace(trace_path, options.step_marker);
  const traces::StepAttribution attribution = traces::attribute_steps(trace, trace_path.string(), options.step_marker);
  ModelSide side = model_side(*options.scenario, registries);
  const scenario::DeviceProfile original = side.scenario.cluster.device_of(0);

  const std::array<double, models::kOpClasses> traced = traced_by_op_class(attribution);
  const std::array<double, models::kOpClasses> before = modelled_by_op_class(side, original);
  std::vector<std::size_t> classes = fitted_classes(traced, before);
  scenario::DeviceProfile device = fit_efficiencies(side, original, traced, classes);
  // A class whose time no efficiency reaches (a small product bound by its weights' traffic, or launches)
  // keeps the device's own efficiency: its traced time goes to the overhead.
  std::vector<std::size_t> unreached;
  const std::array<double, models::kOpClasses> now = modelled_by_op_class(side, device);
  for (const std::size_t c : classes) {
    if (std::abs(std::log(now[c] / traced[c])) > std::log(1.05)) unreached.push_back(c);
  }
  if (!unreached.empty()) {
    std::erase_if(classes,
                  [&](std::size_t c) { return std::find(unreached.begin(), unreached.end(), c) != unreached.end(); });
    device = fit_efficiencies(side, original, traced, classes);
  }
  const std::array<double, models::kOpClasses> after = modelled_by_op_class(side, device);

  // One worker has no peers to wait for: its step is the traced computation's span less the communication
  // alone in it. A scenario of several workers simulates its communication, and takes the host's step.
  const double step = attribution.mean(&traces::StepTime::host_s);
  const bool alone = side.scenario.cluster.workers == 1;
  double target = step;
  if (alone) {
    target = attribution.window.alone_s();
  }
  const double passes = 2.0 * static_cast<double>(side.layers.layers.size()) * side.microbatches;
  double predicted = 0.0;
  const double overhead = fit_overhead(side, device, target, passes, registries, predicted);

  Calibration out;
  out.report = attribution_table(attribution, trace_path.filename().string());
  std::vector<std::string> step_names;
  for (const traces::StepTime& step_time : attribution.steps) step_names.push_back(step_time.name);
  out.report += layer_matching_report(trace, step_names, side.layers);
  out.report += fmt::format("{:<14} {:>11} {:>16} {:>12} {:>16}\n", "class", "traced ms", "dtsim before ms",
                            "efficiency", "dtsim fitted ms");
  for (std::size_t c = 0; c < models::kOpClasses; ++c) {
    if (traced[c] == 0.0 && before[c] == 0.0) continue;
    const bool fitted = std::find(classes.begin(), classes.end(), c) != classes.end();
    std::string remark;
    if (traced[c] > 0.0 && before[c] == 0.0) remark = "  (the model has none: to the overhead)";
    if (!fitted && traced[c] > 0.0 && before[c] > 0.0) remark = "  (the model lacks most of it: to the overhead)";
    if (std::find(unreached.begin(), unreached.end(), c) != unreached.end()) {
      remark = after[c] < traced[c] ? "  (bound by memory traffic at any efficiency: the rest to the overhead)"
                                    : "  (slower than traced even at the peak: check the precision)";
    }
    out.report +=
        fmt::format("{:<14} {:>11} {:>16} {:>12} {:>16}{}\n", models::kOpClassKeys[c], ms(traced[c]), ms(before[c]),
                    fitted ? fmt::format("{:.4f}", *device.class_efficiency[c]) : "not fitted", ms(after[c]), remark);
  }
  out.report +=
      fmt::format("\nhost overhead per layer and pass: {:.3f} us ({} layers x 2 passes x {} micro-batch(es))\n",
                  overhead * 1e6, side.layers.layers.size(), side.microbatches);
  out.report += fmt::format("step: traced {} ms{}; dtsim with the fragment {} ms ({:+.2f}%)\n", ms(step),
                            alone ? fmt::format(", its computation alone {} ms (one worker)", ms(target)) : "",
                            ms(predicted), 100.0 * (target / predicted - 1.0));
  out.catalog = fmt::format(
      "# Fitted by `dtsim calibrate` to {} profiled step(s) of {} ({}) on the model of {}.\n"
      "# Include it in a scenario (`include: {}`) to use them.\ncluster:\n  devices:\n    {}:\n",
      attribution.steps.size(), trace_path.filename().string(),
      attribution.device.empty() ? "GPU not named" : attribution.device, options.scenario->filename().string(),
      options.output ? options.output->filename().string() : "this file", device.name);
  std::string efficiencies;
  for (const std::size_t c : classes) {
    efficiencies += fmt::format("{}{}: {:.6g}", efficiencies.empty() ? "" : ", ", models::kOpClassKeys[c],
                                *device.class_efficiency[c]);
  }
  if (!efficiencies.empty()) out.catalog += fmt::format("      efficiencies: {{{}}}\n", efficiencies);
  out.catalog += fmt::format("      layer_overhead: \"{:.6g}us\"\n", overhead * 1e6);
  return out;
}

}  // namespace dtsim::app
