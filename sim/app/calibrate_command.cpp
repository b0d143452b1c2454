#include "sim/app/calibrate_command.hpp"

#include "sim/app/scenario_resolver.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/name_match.hpp"
#include "sim/runtime/training_run.hpp"
#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

namespace dtsim::app {
namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& key, std::string message, std::string hint = {}) {
  core::Diagnostic diagnostic;
  diagnostic.where.file = where;
  diagnostic.key = key;
  diagnostic.message = std::move(message);
  diagnostic.hint = std::move(hint);
  throw core::InputError(std::move(diagnostic));
}

struct Measurement {
  std::filesystem::path scenario_file;
  std::string label;  ///< as the CSV names it
  double iteration_s = 0.0;
  int line = 0;
  std::optional<double> bound_percent;  ///< the largest throughput error accepted, when the CSV gives one
};

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) {
    const auto first = cell.find_first_not_of(" \t\r");
    const auto last = cell.find_last_not_of(" \t\r");
    out.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return out;
}

std::vector<Measurement> read_measurements(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) refuse(path.string(), "measurements", "cannot read the file", "give a CSV with columns scenario,iteration_s");
  std::string line;
  int header_line = 0;
  // Lines starting with # before the header say where the measurements come from.
  while (std::getline(in, line)) {
    ++header_line;
    if (!line.empty() && line.front() != '#') break;
  }
  const std::vector<std::string> header = split_commas(line);
  const auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      core::Diagnostic d;
      d.where = core::SourcePosition(path.string(), header_line, 1);
      d.key = name;
      d.message = fmt::format("the header has no column '{}'", name);
      d.hint = "the first line names the columns: scenario,iteration_s";
      throw core::InputError(std::move(d));
    }
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t scenario_column = column("scenario");
  const std::size_t time_column = column("iteration_s");
  const auto bound_at = std::find(header.begin(), header.end(), "bound_percent");
  const std::optional<std::size_t> bound_column =
      bound_at == header.end() ? std::nullopt : std::optional<std::size_t>(bound_at - header.begin());
  std::vector<Measurement> out;
  for (int number = header_line + 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line.front() == '#') continue;
    const std::vector<std::string> cells = split_commas(line);
    const auto bad = [&](std::size_t cell, std::string message) {
      core::Diagnostic d;
      d.where = core::SourcePosition(path.string(), number, 1);
      d.key = header[std::min(cell, header.size() - 1)];
      d.message = std::move(message);
      d.hint = "each row: a scenario file (relative to this file) and the measured seconds of one iteration";
      throw core::InputError(std::move(d));
    };
    if (cells.size() <= std::max(scenario_column, time_column)) bad(cells.size(), "the row has too few cells");
    char* end = nullptr;
    const double seconds = std::strtod(cells[time_column].c_str(), &end);
    if (end == cells[time_column].c_str() || *end != '\0' || !(seconds > 0.0) || !std::isfinite(seconds)) {
      bad(time_column, fmt::format("expected a positive number of seconds, got \"{}\"", cells[time_column]));
    }
    std::optional<double> bound;
    if (bound_column) {
      if (cells.size() <= *bound_column) bad(cells.size(), "the row has too few cells");
      const double percent = std::strtod(cells[*bound_column].c_str(), &end);
      if (end == cells[*bound_column].c_str() || *end != '\0' || !(percent > 0.0) || !std::isfinite(percent)) {
        bad(*bound_column, fmt::format("expected a positive percentage, got \"{}\"", cells[*bound_column]));
      }
      bound = percent;
    }
    out.push_back({path.parent_path() / cells[scenario_column], cells[scenario_column], seconds, number, bound});
  }
  if (out.empty()) refuse(path.string(), "measurements", "the file has no measurement rows");
  return out;
}

/// A key to fit: a device and an operation class (none: every class).
struct FitKey {
  std::string device;
  std::optional<models::OpClass> op;
  [[nodiscard]] std::string name() const { return op ? device + "." + std::string(models::key_of(*op)) : device; }
};

FitKey parse_key(const std::string& text) {
  FitKey key;
  const auto dot = text.find('.');
  key.device = text.substr(0, dot);
  if (dot == std::string::npos) return key;
  const std::string op = text.substr(dot + 1);
  for (std::size_t c = 0; c < models::kOpClasses; ++c) {
    if (models::kOpClassKeys[c] == op) key.op = static_cast<models::OpClass>(c);
  }
  if (!key.op) {
    std::vector<std::string> names(models::kOpClassKeys.begin(), models::kOpClassKeys.end());
    refuse("dtsim calibrate", "--fit", fmt::format("'{}' is no operation class", op),
           fmt::format("DEVICE.CLASS with CLASS one of {}, or DEVICE alone", core::join_names(names)));
  }
  return key;
}

void set_efficiency(scenario::DeviceProfile& device, const FitKey& key, double value) {
  if (device.name != key.device) return;
  if (key.op) {
    device.class_efficiency[static_cast<std::size_t>(*key.op)] = value;
  } else {
    device.efficiency = value;
    device.class_efficiency = {};
  }
  device.efficiency_assumed = false;
}

scenario::Scenario with_values(scenario::Scenario s, const std::vector<FitKey>& keys, const std::vector<double>& values) {
  for (std::size_t k = 0; k < keys.size(); ++k) {
    set_efficiency(s.cluster.device, keys[k], values[k]);
    set_efficiency(s.cluster.server_device, keys[k], values[k]);
    for (scenario::DeviceProfile& d : s.cluster.worker_devices) set_efficiency(d, keys[k], values[k]);
  }
  return s;
}

/// Seconds per iteration of `s`, simulated in a child process: SimGrid runs one engine per process.
double simulate_iteration(const scenario::Scenario& s, const Registries& registries) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error("cannot open a pipe to a simulation");
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("cannot start a simulation");
  if (child == 0) {
    ::close(pipe_ends[0]);
    std::string answer;
    try {
      const runtime::TrainingSetup setup = resolve_scenario(s, registries);
      const metrics::RunRecord record = runtime::run_training(s, setup);
      answer = fmt::format("{:.17g}", record.simulated_s / static_cast<double>(std::max<std::int64_t>(record.iterations, 1)));
    } catch (const std::exception& error) {
      answer = std::string("!") + error.what();
    }
    for (std::size_t done = 0; done < answer.size();) {
      const ssize_t n = ::write(pipe_ends[1], answer.data() + done, answer.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(pipe_ends[1]);
  std::string answer;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_ends[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_ends[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (answer.empty()) throw std::runtime_error(fmt::format("the simulation of '{}' ended without a result", s.name));
  if (answer.front() == '!') throw std::runtime_error(fmt::format("the simulation of '{}' failed: {}", s.name, answer.substr(1)));
  return std::stod(answer);
}

/// The minimum of a unimodal `f` over [low, high], by golden-section search to a relative width of 1e-6.
double golden_minimum(const std::function<double(double)>& f, double low, double high) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = low, b = high;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = f(c), fd = f(d);
  while (b - a > 1e-6 * b) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - ratio * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + ratio * (b - a), fd = f(d);
    }
  }
  return 0.5 * (a + b);
}

std::string catalog_text(const CalibrateOptions& options, const std::vector<FitKey>& keys, const std::vector<double>& values) {
  std::string out = fmt::format("# Device efficiencies fitted by `dtsim calibrate` to the iteration times in {}.\n"
                                "# Include it in a scenario (`include: {}`) to use them.\ncluster:\n  devices:\n",
                                options.measurements.filename().string(),
                                options.output ? options.output->filename().string() : "this file");
  std::vector<std::string> devices;
  for (const FitKey& key : keys) {
    if (std::find(devices.begin(), devices.end(), key.device) == devices.end()) devices.push_back(key.device);
  }
  for (const std::string& device : devices) {
    out += fmt::format("    {}:\n", device);
    std::string classes;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].device != device) continue;
      if (!keys[k].op) {
        out += fmt::format("      efficiency: {:.4f}\n", values[k]);
      } else {
        classes += fmt::format("{}{}: {:.4f}", classes.empty() ? "" : ", ", models::key_of(*keys[k].op), values[k]);
      }
    }
    if (!classes.empty()) out += fmt::format("      efficiencies: {{{}}}\n", classes);
  }
  return out;
}

}  // namespace

Calibration calibrate(const CalibrateOptions& options, const Registries& registries) {
  if (options.fit.empty() && options.output) {
    refuse("dtsim calibrate", "--fit", "a catalog needs something fitted",
           "for example --fit a100.convolution (an operation class of a device) or --fit cpu (every class)");
  }
  std::vector<FitKey> keys;
  for (const std::string& text : options.fit) keys.push_back(parse_key(text));
  const std::vector<Measurement> measurements = read_measurements(options.measurements);
  std::vector<scenario::Scenario> scenarios;
  for (const Measurement& m : measurements) {
    scenarios.push_back(scenario::read_scenario_file(m.scenario_file));
    check_scenario(scenarios.back(), registries);
  }
  for (const FitKey& key : keys) {
    const bool used = std::any_of(scenarios.begin(), scenarios.end(), [&](const scenario::Scenario& s) {
      if (s.cluster.device.name == key.device) return true;
      return std::any_of(s.cluster.worker_devices.begin(), s.cluster.worker_devices.end(),
                         [&](const scenario::DeviceProfile& d) { return d.name == key.device; });
    });
    if (!used) {
      refuse("dtsim calibrate", "--fit", fmt::format("no measured scenario runs on a device called '{}'", key.device),
             "name a device of the scenarios (cluster.device.name, or a node type's device)");
    }
  }
  std::vector<double> values(keys.size(), 0.5);
  const auto predictions = [&](const std::vector<double>& v) {
    std::vector<double> out;
    for (const scenario::Scenario& s : scenarios) out.push_back(simulate_iteration(with_values(s, keys, v), registries));
    return out;
  };
  const auto misfit = [&](const std::vector<double>& v) {
    const std::vector<double> predicted = predictions(v);
    double total = 0.0;
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      const double e = std::log(predicted[i] / measurements[i].iteration_s);
      total += e * e;
    }
    return total;
  };
  // One key at a time, each over its whole range, until a sweep over the keys no longer moves them.
  for (int sweep = 0; !keys.empty() && sweep < (keys.size() == 1 ? 1 : 8); ++sweep) {
    const std::vector<double> before = values;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      values[k] = golden_minimum(
          [&](double x) {
            std::vector<double> trial = values;
            trial[k] = x;
            return misfit(trial);
          },
          1e-3, 1.0);
    }
    double moved = 0.0;
    for (std::size_t k = 0; k < keys.size(); ++k) moved = std::max(moved, std::abs(values[k] - before[k]) / values[k]);
    if (moved < 1e-5) break;
  }
  Calibration out;
  const std::vector<double> predicted = predictions(values);
  if (!keys.empty()) {
    out.report = "fitted sustained efficiencies:\n";
    for (std::size_t k = 0; k < keys.size(); ++k) {
      out.report += fmt::format("  {:<28} {:.4f}\n", keys[k].name(), values[k]);
      if (values[k] > 0.999 || values[k] < 0.0011) {
        out.report += "    (at the end of its range: the measurements ask for more, or less, than an efficiency can give)\n";
      }
    }
    out.report += "\n";
  }
  // The error of the predicted throughput (work per second), positive where dtsim predicts faster.
  out.report += fmt::format("{:<44} {:>14} {:>14} {:>8}  {}\n", "scenario", "measured s", "predicted s", "error", "bound");
  std::vector<double> errors;
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    const double error = 100.0 * (measurements[i].iteration_s / predicted[i] - 1.0);
    errors.push_back(std::abs(error));
    const std::optional<double> bound = measurements[i].bound_percent;
    const bool over = bound && std::abs(error) > *bound;
    out.over_bound += over ? 1 : 0;
    out.report += fmt::format("{:<44} {:>14.6g} {:>14.6g} {:>+7.2f}%  {}\n", measurements[i].label,
                              measurements[i].iteration_s, predicted[i], error,
                              bound ? fmt::format("{}{:.1f}%", over ? "OVER " : "", *bound) : "");
  }
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  const double median = n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  out.report += fmt::format("error of the predicted throughput (measured s / predicted s - 1): median |error| {:.2f}%, "
                            "largest {:.2f}%\n",
                            median, errors.back());
  if (out.over_bound > 0) out.report += fmt::format("{} row(s) over their bound\n", out.over_bound);
  if (!keys.empty()) out.catalog = catalog_text(options, keys, values);
  return out;
}

std::string calibrate_command(const CalibrateOptions& options, const Registries& registries, int* over_bound) {
  Calibration result = calibrate(options, registries);
  if (over_bound != nullptr) *over_bound = result.over_bound;
  if (options.output) {
    core::write_file_atomically(*options.output, result.catalog);
    result.report += fmt::format("\ncatalog written to {}\n", options.output->string());
  } else if (!result.catalog.empty()) {
    result.report += "\n" + result.catalog;
  }
  return result.report;
}

}  // namespace dtsim::app
