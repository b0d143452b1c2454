#include "sim/app/calibrate_command.hpp"

#include "sim/app/calibration_search.hpp"
#include "sim/app/collective_measurements.hpp"
#include "sim/app/iteration_simulation.hpp"
#include "sim/app/trace_calibration.hpp"
#include "sim/checks/scenario_resolver.hpp"
#include "sim/comm/library_collective.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/name_match.hpp"
#include "sim/runtime/jobs/training_run.hpp"
#include "sim/runtime/network/collective_run.hpp"
#include "sim/scenario/device_catalog.hpp"
#include "sim/scenario/node_catalog.hpp"
#include "sim/scenario/scenario_builder.hpp"
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

/// One measured row: a training run's iteration, or one size of one collective.
struct Measurement {
  std::size_t scenario = 0;  ///< index into the calibration's scenarios
  std::string label;         ///< as the measurements name it
  double measured_s = 0.0;   ///< seconds of one iteration or one call; for a bus bandwidth, set once the ranks are known
  int line = 0;
  int column = 1;                       ///< where the row's time (or bus bandwidth) starts, for errors
  std::optional<double> bound_percent;  ///< the largest error of the predicted throughput accepted
  std::optional<comm::Operation> collective;  ///< set for a collective's row
  double size_bytes = 0.0;
  std::optional<double> busbw_gb_per_s;  ///< a collective's measured bus bandwidth, when that is what was given
  /// A `test` row judges the fitted values and takes no part in fitting them; `fit` rows (every row of a file
  /// without a `split` column) fit them.
  bool test = false;
};

/// Where an iteration-time CSV's header puts its columns.
struct IterationColumns {
  std::size_t scenario = 0;
  std::size_t time = 0;
  std::optional<std::size_t> bound;
  std::optional<std::size_t> split;
};

/// The columns `header` of the iteration-time CSV `path` names; throws core::InputError at the header for a
/// required one it lacks.
IterationColumns iteration_columns(const std::filesystem::path& path, const CsvHeader& header) {
  const auto find = [&](const std::string& name) -> std::optional<std::size_t> {
    const auto it = std::find(header.cells.begin(), header.cells.end(), name);
    if (it == header.cells.end()) return std::nullopt;
    return static_cast<std::size_t>(it - header.cells.begin());
  };
  const auto required = [&](const std::string& name) {
    const std::optional<std::size_t> at = find(name);
    if (!at) {
      core::Diagnostic d;
      d.where = core::SourcePosition(path.string(), header.line, 1);
      d.key = name;
      d.message = fmt::format("the header has no column '{}'", name);
      d.hint = "the first line names the columns: scenario,iteration_s (or, for collectives, scenario,operation,size_B,busbw_GBps)";
      throw core::InputError(std::move(d));
    }
    return *at;
  };
  IterationColumns out;
  out.scenario = required("scenario");
  out.time = required("iteration_s");
  out.bound = find("bound_percent");
  out.split = find("split");
  return out;
}

constexpr const char* kIterationRowHint =
    "each row: a scenario file (relative to this file) and the measured seconds of one iteration";

/// The rows of an iteration-time CSV, each naming its scenario file (relative to the CSV).
std::vector<std::pair<Measurement, std::filesystem::path>> read_iteration_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    refuse_input(path.string(), "measurements", "cannot read the file", "give a CSV with columns scenario,iteration_s");
  const CsvHeader header = csv_header(in, path);
  const IterationColumns table = iteration_columns(path, header);
  std::vector<std::pair<Measurement, std::filesystem::path>> out;
  // Every bad row is reported, each at its cell, so that one run names all a user must fix.
  core::DiagnosticSink problems;
  core::ExcerptOnce excerpt;
  std::string line;
  for (int number = header.line + 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line.front() == '#') continue;
    if (named_enough(problems, path, number)) break;
    const std::vector<std::string> cells = csv_cells(line);
    const std::vector<int> columns = core::csv_cell_columns(line);
    bool good = true;
    const auto bad = [&](std::size_t cell, std::string message, std::string hint = kIterationRowHint) {
      const int at = cell < columns.size() ? columns[cell] : static_cast<int>(line.size()) + 1;
      // A cell past the header's last column belongs to no column: the file is at fault.
      std::string key = cell < header.cells.size() ? header.cells[cell] : std::string("measurements");
      problems.error(core::SourcePosition(path.string(), number, at), std::move(key), std::move(message),
                     std::move(hint));
      good = false;
    };
    const auto positive = [&](std::size_t cell) -> std::optional<double> {
      char* end = nullptr;
      const double value = std::strtod(cells[cell].c_str(), &end);
      if (end == cells[cell].c_str() || *end != '\0' || !(value > 0.0) || !std::isfinite(value)) return std::nullopt;
      return value;
    };
    if (cells.size() <= std::max(table.scenario, table.time) || (table.bound && cells.size() <= *table.bound) ||
        (table.split && cells.size() <= *table.split)) {
      bad(cells.size(), fmt::format("the row has {} cells, and the header names more", cells.size()));
      continue;
    }
    const std::optional<double> seconds = positive(table.time);
    if (!seconds) {
      bad(table.time, "expected a positive number of seconds" + excerpt.got(cells[table.time]));
    } else if (!is_measurable_duration(*seconds)) {
      bad(table.time,
          fmt::format("expected a number of seconds {}{}", measurable_duration_text(), excerpt.got(cells[table.time])),
          "give the measured seconds of one iteration, such as 0.25 for 250 ms");
    }
    const std::optional<double> percent = table.bound ? positive(*table.bound) : std::nullopt;
    if (table.bound && !percent) bad(*table.bound, "expected a positive percentage" + excerpt.got(cells[*table.bound]));
    if (table.split && cells[*table.split] != "fit" && cells[*table.split] != "test") {
      bad(*table.split, "expected fit or test" + excerpt.got(cells[*table.split]));
    }
    if (cells.size() > header.cells.size()) {
      const std::string extra = excerpt.got(cells[header.cells.size()]);
      bad(header.cells.size(), extra_cells_message(cells.size(), header.cells.size()) + extra, kExtraCellsHint);
    }
    if (!good) continue;
    Measurement m;
    m.test = table.split && cells[*table.split] == "test";
    m.label = cells[table.scenario];
    m.measured_s = *seconds;
    m.line = number;
    m.column = table.time < columns.size() ? columns[table.time] : 1;
    m.bound_percent = percent;
    out.emplace_back(m, path.parent_path() / cells[table.scenario]);
  }
  problems.throw_if_any();
  if (out.empty()) refuse_input(path.string(), "measurements", "the file has no measurement rows");
  return out;
}

/// "`what` median |error| m%, largest l%" of the absolute errors `errors` (percent), a line.
std::string error_summary(const std::string& what, std::vector<double> errors) {
  if (errors.empty()) return fmt::format("{} none\n", what);
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  const double median = n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  return fmt::format("{} median |error| {:.2f}%, largest {:.2f}%\n", what, median, errors.back());
}

/// Whether a CSV's header names collective columns (size_B) rather than iteration times.
bool is_collective_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  const std::vector<std::string> header = csv_header(in, path).cells;
  return std::find(header.begin(), header.end(), "size_B") != header.end();
}

/// A value to fit: a device's efficiency (for one operation class, or all), a node type's intra-node link
/// bandwidth or latency, or the topology link's.
struct FitKey {
  enum class Quantity { efficiency, intra_bandwidth, intra_latency, link_bandwidth, link_latency };
  Quantity quantity = Quantity::efficiency;
  std::string target;  ///< the device or the node type; empty for the topology's link
  std::optional<models::OpClass> op;
  [[nodiscard]] std::string name() const {
    switch (quantity) {
      case Quantity::efficiency: return op ? target + "." + std::string(models::key_of(*op)) : target;
      case Quantity::intra_bandwidth: return target + ".intra_link.bandwidth";
      case Quantity::intra_latency: return target + ".intra_link.latency";
      case Quantity::link_bandwidth: return "link.bandwidth";
      case Quantity::link_latency: return "link.latency";
    }
    return target;
  }
  [[nodiscard]] bool is_bandwidth() const {
    return quantity == Quantity::intra_bandwidth || quantity == Quantity::link_bandwidth;
  }
};

FitKey parse_key(const std::string& text) {
  FitKey key;
  const auto ends_with = [&](std::string_view tail) {
    return text.size() > tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (text == "link.bandwidth" || text == "link.latency") {
    key.quantity = text == "link.bandwidth" ? FitKey::Quantity::link_bandwidth : FitKey::Quantity::link_latency;
    return key;
  }
  for (const auto& [tail, quantity] : {std::pair{std::string_view(".intra_link.bandwidth"), FitKey::Quantity::intra_bandwidth},
                                       std::pair{std::string_view(".intra_link.latency"), FitKey::Quantity::intra_latency}}) {
    if (ends_with(tail)) {
      key.quantity = quantity;
      key.target = text.substr(0, text.size() - tail.size());
      return key;
    }
  }
  const auto dot = text.find('.');
  key.target = text.substr(0, dot);
  if (dot == std::string::npos) return key;
  const std::string op = text.substr(dot + 1);
  for (std::size_t c = 0; c < models::kOpClasses; ++c) {
    if (models::kOpClassKeys[c] == op) key.op = static_cast<models::OpClass>(c);
  }
  if (!key.op) {
    std::vector<std::string> names(models::kOpClassKeys.begin(), models::kOpClassKeys.end());
    refuse_input(
        "dtsim calibrate", "--fit", fmt::format("'{}' is no operation class", op),
        fmt::format("DEVICE.CLASS with CLASS one of {}, or DEVICE alone; for links NODE_TYPE.intra_link.bandwidth, "
                    "NODE_TYPE.intra_link.latency, link.bandwidth or link.latency",
                    core::join_names(names)));
  }
  return key;
}

void set_efficiency(scenario::DeviceProfile& device, const FitKey& key, double value) {
  if (device.name != key.target) return;
  if (key.op) {
    device.class_efficiency[static_cast<std::size_t>(*key.op)] = value;
  } else {
    device.efficiency = value;
    device.class_efficiency = {};
  }
  device.efficiency_assumed = false;
}

std::string bandwidth_text(double bytes_per_s) { return fmt::format("{:.6g}GBps", bytes_per_s / 1e9); }
std::string latency_text(double seconds) { return fmt::format("{:.6g}us", seconds * 1e6); }

/// Sets the topology link's figures: the builders read the resolved link (topologies::topology_link).
void set_link(scenario::Scenario& s, const scenario::LinkSpec& link) { s.topology.link = link; }

scenario::Scenario with_values(scenario::Scenario s, const std::vector<FitKey>& keys, const std::vector<double>& values) {
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const FitKey& key = keys[k];
    switch (key.quantity) {
      case FitKey::Quantity::efficiency:
        each_device(s, [&](scenario::DeviceProfile& d) { set_efficiency(d, key, values[k]); });
        break;
      case FitKey::Quantity::intra_bandwidth:
      case FitKey::Quantity::intra_latency:
        for (scenario::NodeGroup& group : s.cluster.nodes) {
          if (group.type != key.target) continue;
          if (key.is_bandwidth()) {
            group.intra_link.bandwidth = core::BytesPerSecond(values[k]);
          } else {
            group.intra_link.latency = core::Seconds(values[k]);
          }
        }
        break;
      case FitKey::Quantity::link_bandwidth:
      case FitKey::Quantity::link_latency: {
        scenario::LinkSpec link = s.topology.link;
        if (key.is_bandwidth()) {
          link.bandwidth = core::BytesPerSecond(values[k]);
        } else {
          link.latency = core::Seconds(values[k]);
        }
        set_link(s, link);
        break;
      }
    }
  }
  return s;
}

/// Seconds of one `operation` of each size on the workers of `s`, with the scenario's algorithm (ring where
/// the operation has no algorithm of that name) run as its communication library runs it.
std::vector<double> simulate_collective(const scenario::Scenario& s, const checks::Registries& registries,
                                        comm::Operation operation, const std::vector<double>& sizes) {
  const std::string answer = in_child_process(s.name, [&] {
    const comm::CollectiveRegistry& registry = registries.collectives.of(operation);
    const std::string name = registry.contains(s.training.allreduce_algorithm.value) ? s.training.allreduce_algorithm.value : "ring";
    const std::unique_ptr<comm::CollectiveAlgorithm> algorithm =
        checks::as_library_runs_it(s.training.communication_library, s, registry.find(name).factory.make());
    const topology::TopologyGraph graph = scenario::build_topology(s, registries.topologies);
    std::vector<runtime::CollectiveCase> cases;
    for (const double size : sizes) cases.push_back({algorithm.get(), static_cast<std::size_t>(std::max(1.0, std::round(size / 4.0))), true});
    std::string out;
    for (const double seconds : runtime::time_collective_cases(graph, s.topology.network_model, cases)) {
      out += fmt::format("{:.17g} ", seconds);
    }
    return out;
  });
  std::vector<double> times;
  std::istringstream in(answer);
  for (double t = 0.0; in >> t;) times.push_back(t);
  if (times.size() != sizes.size()) throw std::runtime_error(fmt::format("the collectives of '{}' gave no time for every size", s.name));
  return times;
}

/// The minimum of a unimodal `f` over [low, high] to a width of 1e-5 of the larger end (every trial is a
/// simulation: finer than the measurements' own precision buys nothing).
double minimum_over(const std::function<double(double)>& f, double low, double high) {
  return golden_minimum(f, low, high, 1e-5 * std::max(std::abs(low), std::abs(high)));
}

std::string catalog_text(const CalibrateOptions& options, const std::vector<FitKey>& keys, const std::vector<double>& values,
                         const std::vector<scenario::Scenario>& scenarios) {
  std::string out = fmt::format("# Values fitted by `dtsim calibrate` to the measurements in {}.\n"
                                "# Include it in a scenario (`include: {}`) to use them.\n",
                                options.measurements.filename().string(),
                                options.output ? options.output->filename().string() : "this file");
  const auto add_once = [](std::vector<std::string>& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  std::vector<std::string> devices, node_types;
  for (const FitKey& key : keys) {
    if (key.quantity == FitKey::Quantity::efficiency) add_once(devices, key.target);
    if (key.quantity == FitKey::Quantity::intra_bandwidth || key.quantity == FitKey::Quantity::intra_latency) {
      add_once(node_types, key.target);
    }
  }
  if (!devices.empty() || !node_types.empty()) out += "cluster:\n";
  if (!devices.empty()) out += "  devices:\n";
  for (const std::string& device : devices) {
    out += fmt::format("    {}:\n", device);
    std::string classes;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].quantity != FitKey::Quantity::efficiency || keys[k].target != device) continue;
      if (!keys[k].op) {
        out += fmt::format("      efficiency: {:.4f}\n", values[k]);
      } else {
        classes += fmt::format("{}{}: {:.4f}", classes.empty() ? "" : ", ", models::key_of(*keys[k].op), values[k]);
      }
    }
    if (!classes.empty()) out += fmt::format("      efficiencies: {{{}}}\n", classes);
  }
  // A declared node type replaces the built-in one of the same name whole: every figure is written out.
  if (!node_types.empty()) out += "  node_types:\n";
  for (const std::string& type : node_types) {
    const scenario::NodeGroup* group = nullptr;
    for (const scenario::Scenario& s : scenarios) {
      for (const scenario::NodeGroup& g : s.cluster.nodes) {
        if (group == nullptr && g.type == type) group = &g;
      }
    }
    scenario::LinkSpec link = group->intra_link;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].target != type) continue;
      if (keys[k].quantity == FitKey::Quantity::intra_bandwidth) link.bandwidth = core::BytesPerSecond(values[k]);
      if (keys[k].quantity == FitKey::Quantity::intra_latency) link.latency = core::Seconds(values[k]);
    }
    out += fmt::format("    {}:\n      devices: {}\n      device: {}\n      intra: {}\n      nics: {}\n"
                       "      intra_link: {{bandwidth: \"{}\", latency: \"{}\"}}\n",
                       type, group->devices, group->device.name, scenario::to_string(group->intra), group->nics,
                       bandwidth_text(link.bandwidth.value()), latency_text(link.latency.value()));
  }
  std::string link;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (keys[k].quantity == FitKey::Quantity::link_bandwidth) link += fmt::format("{}bandwidth: \"{}\"", link.empty() ? "" : ", ", bandwidth_text(values[k]));
    if (keys[k].quantity == FitKey::Quantity::link_latency) link += fmt::format("{}latency: \"{}\"", link.empty() ? "" : ", ", latency_text(values[k]));
  }
  if (!link.empty()) {
    out += fmt::format("# The including scenario's own topology.link, if it has one, takes precedence: remove it there.\n"
                       "topology:\n  link: {{{}}}\n",
                       link);
  }
  return out;
}

/// The range a key's value is searched over, and whether on a logarithmic scale.
struct SearchRange {
  double low = 0.0, high = 1.0;
  bool logarithmic = false;
};

SearchRange range_of(const FitKey& key, double start) {
  if (key.quantity == FitKey::Quantity::efficiency) return {1e-3, 1.0, false};
  if (key.is_bandwidth()) return {start / 20.0, start * 5.0, true};
  return {0.0, std::max(20.0 * start, 20e-6), false};
}

/// The starting value of `key` in `s` (a link's figure as declared; 0.5 for an efficiency); none when `s`
/// has nothing the key names.
std::optional<double> start_of(const FitKey& key, const scenario::Scenario& s) {
  switch (key.quantity) {
    case FitKey::Quantity::efficiency: {
      bool used = s.cluster.device.name == key.target;
      for (const scenario::DeviceProfile& d : s.cluster.worker_devices) used = used || d.name == key.target;
      for (const scenario::NodeGroup& g : s.cluster.nodes) used = used || g.device.name == key.target;
      return used ? std::optional<double>(0.5) : std::nullopt;
    }
    case FitKey::Quantity::intra_bandwidth:
    case FitKey::Quantity::intra_latency:
      for (const scenario::NodeGroup& g : s.cluster.nodes) {
        if (g.type == key.target) return key.is_bandwidth() ? g.intra_link.bandwidth.value() : g.intra_link.latency.value();
      }
      return std::nullopt;
    case FitKey::Quantity::link_bandwidth: return s.topology.link.bandwidth.value();
    case FitKey::Quantity::link_latency: return s.topology.link.latency.value();
  }
  return std::nullopt;
}

}  // namespace

namespace {

/// The measurements, and each distinct scenario file they name, read once and checked.
struct MeasuredRows {
  std::vector<Measurement> measurements;
  std::vector<scenario::Scenario> scenarios;
  std::vector<std::filesystem::path> files;  ///< the file of each scenario, as the measurements name it
};

/// Turns each bus bandwidth of `rows` (read from `path`) into the time it stands for, now that the ranks are
/// known: busbw = size / time x the collective's factor. Throws core::InputError at each whose time lies
/// outside the durations dtsim takes: 1 KiB at 1e290 GB/s stands for some 1e-296 s.
void times_of_bus_bandwidths(const std::filesystem::path& path, MeasuredRows& rows) {
  core::DiagnosticSink problems;
  for (Measurement& m : rows.measurements) {
    if (!m.busbw_gb_per_s) continue;
    const int ranks = rows.scenarios[m.scenario].cluster.workers;
    m.measured_s = m.size_bytes * comm::bus_bandwidth_factor(*m.collective, ranks) / (*m.busbw_gb_per_s * 1e9);
    if (is_measurable_duration(m.measured_s)) continue;
    if (named_enough(problems, path, m.line)) break;
    problems.error(core::SourcePosition(path.string(), m.line, m.column), "busbw_GBps",
                   fmt::format("{:g} GB/s over {:g} B on {} ranks is a time of {:.3g}s: expected a time {}",
                               *m.busbw_gb_per_s, m.size_bytes, ranks, m.measured_s, measurable_duration_text()),
                   "give each size's bus bandwidth in GB/s, as nccl-tests prints it");
  }
  problems.throw_if_any();
}

MeasuredRows read_measurements(const CalibrateOptions& options, const checks::Registries& registries) {
  MeasuredRows out;
  int nccl_tests_ranks = 0;  // the ranks nccl-tests output lists, when that is the input
  std::vector<std::filesystem::path>& files = out.files;
  const auto scenario_index = [&](const std::filesystem::path& file) {
    const auto it = std::find(files.begin(), files.end(), file);
    if (it != files.end()) return static_cast<std::size_t>(it - files.begin());
    files.push_back(file);
    return files.size() - 1;
  };
  const auto add_collectives = [&](const std::vector<CollectiveMeasurement>& rows) {
    for (const CollectiveMeasurement& row : rows) {
      Measurement m;
      m.scenario = scenario_index(row.scenario_file);
      m.label = fmt::format("{} {} {}", row.label, comm::to_string(row.operation), core::format_size(core::Bytes(row.size_bytes)));
      m.measured_s = row.time_s.value_or(0.0);
      m.line = row.line;
      m.column = row.value_column;
      m.bound_percent = row.bound_percent;
      m.collective = row.operation;
      m.size_bytes = row.size_bytes;
      if (!row.time_s) m.busbw_gb_per_s = row.busbw_gb_per_s;
      out.measurements.push_back(m);
    }
  };
  if (is_nccl_tests_output(options.measurements)) {
    if (!options.scenario) {
      refuse_input("dtsim calibrate", "--scenario",
                   "nccl-tests output needs the scenario of the cluster it was measured on",
                   "add --scenario FILE: a scenario whose cluster and topology are the measured machines");
    }
    add_collectives(read_nccl_tests(options.measurements, *options.scenario, &nccl_tests_ranks));
  } else if (is_collective_csv(options.measurements)) {
    add_collectives(read_collective_csv(options.measurements));
  } else {
    for (auto& [m, file] : read_iteration_csv(options.measurements)) {
      m.scenario = scenario_index(file);
      out.measurements.push_back(m);
    }
  }
  const scenario::ScenarioFormat format(registries);
  for (const std::filesystem::path& file : files) {
    out.scenarios.push_back(scenario::read_scenario_file(format, file));
    checks::check_scenario(out.scenarios.back(), registries);
  }
  if (nccl_tests_ranks > 0 && nccl_tests_ranks != out.scenarios.front().cluster.workers) {
    refuse_input(options.measurements.string(), "measurements",
                 fmt::format("the output lists {} ranks and {} has {} workers", nccl_tests_ranks,
                             options.scenario->string(), out.scenarios.front().cluster.workers),
                 "give a scenario with as many workers as the measurement had GPUs");
  }
  times_of_bus_bandwidths(options.measurements, out);
  return out;
}

/// Whether `a` and `b` are one file: the same file by std::filesystem::equivalent where both exist (a link or
/// another spelling of it), else the same absolute path once normalised.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code error;
  if (std::filesystem::exists(a, error) && std::filesystem::exists(b, error)) {
    return std::filesystem::equivalent(a, b, error);
  }
  const auto normal = [](const std::filesystem::path& p) {
    std::error_code failed;
    const std::filesystem::path whole = std::filesystem::absolute(p, failed);
    return (failed ? p : whole).lexically_normal();
  };
  return normal(a) == normal(b);
}

constexpr const char* kOwnFileHint =
    "write the catalog to a file of its own and include it in the scenarios (include: catalog.yaml)";

/// Refuses a catalog file that is one of the calibration's inputs, before anything is written: the catalog
/// would replace the measurements, or the scenario they were measured on.
void refuse_output_among_inputs(const CalibrateOptions& options, const MeasuredRows& rows) {
  if (!options.output) return;
  const std::filesystem::path& output = *options.output;
  const char* hint = kOwnFileHint;
  if (same_file(output, options.measurements)) {
    refuse_input("dtsim calibrate", "--output",
                 fmt::format("{} is the measurements table: the catalog would replace it", output.string()), hint);
  }
  for (std::size_t s = 0; s < rows.files.size(); ++s) {
    if (!same_file(output, rows.files[s])) continue;
    const auto row = std::find_if(rows.measurements.begin(), rows.measurements.end(),
                                  [&](const Measurement& m) { return m.scenario == s; });
    refuse_input("dtsim calibrate", "--output",
                 fmt::format("{} is the scenario of the measurements at {}:{}: the catalog would replace it",
                             output.string(), options.measurements.string(), row->line),
                 hint);
  }
}

/// Each key's starting value (as the first scenario that has it declares it) and its search range.
void starting_points(const std::vector<FitKey>& keys, const std::vector<scenario::Scenario>& scenarios,
                     std::vector<double>& values, std::vector<SearchRange>& ranges) {
  for (const FitKey& key : keys) {
    std::optional<double> start;
    for (const scenario::Scenario& s : scenarios) {
      if (!start) start = start_of(key, s);
    }
    if (!start) {
      refuse_input("dtsim calibrate", "--fit",
                   key.quantity == FitKey::Quantity::efficiency
                       ? fmt::format("no measured scenario runs on a device called '{}'", key.target)
                       : fmt::format("no measured scenario has nodes of type '{}'", key.target),
                   key.quantity == FitKey::Quantity::efficiency
                       ? "name a device of the scenarios (cluster.device.name, or a node type's device)"
                       : "name a node type of the scenarios' cluster.nodes");
    }
    values.push_back(*start);
    ranges.push_back(range_of(key, *start));
  }
}

/// Every row's predicted seconds with `keys` at `values`: an iteration row runs one simulation, a scenario's
/// collective rows of one operation run together.
std::vector<double> predictions(const MeasuredRows& rows, const std::vector<FitKey>& keys,
                                const std::vector<double>& values, const checks::Registries& registries) {
  const std::vector<Measurement>& measurements = rows.measurements;
  std::vector<double> out(measurements.size(), 0.0);
  std::vector<bool> done(measurements.size(), false);
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    if (done[i]) continue;
    const scenario::Scenario s = with_values(rows.scenarios[measurements[i].scenario], keys, values);
    if (!measurements[i].collective) {
      out[i] = simulate_iteration(s, registries);
      done[i] = true;
      continue;
    }
    std::vector<std::size_t> group;
    std::vector<double> sizes;
    for (std::size_t j = i; j < measurements.size(); ++j) {
      if (measurements[j].scenario == measurements[i].scenario && measurements[j].collective == measurements[i].collective) {
        group.push_back(j);
        sizes.push_back(measurements[j].size_bytes);
      }
    }
    const std::vector<double> times = simulate_collective(s, registries, *measurements[i].collective, sizes);
    for (std::size_t g = 0; g < group.size(); ++g) out[group[g]] = times[g], done[group[g]] = true;
  }
  return out;
}

/// Fits `values` to the fit rows (the sum of squared log errors), one key at a time over its whole range,
/// until a sweep over the keys no longer moves them.
void fit_values(const MeasuredRows& rows, const std::vector<FitKey>& keys, const std::vector<SearchRange>& ranges,
                std::vector<double>& values, const checks::Registries& registries) {
  const auto misfit = [&](const std::vector<double>& v) {
    const std::vector<double> predicted = predictions(rows, keys, v, registries);
    double total = 0.0;
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      if (rows.measurements[i].test) continue;
      const double e = std::log(predicted[i] / rows.measurements[i].measured_s);
      total += e * e;
    }
    return total;
  };
  for (int sweep = 0; !keys.empty() && sweep < (keys.size() == 1 ? 1 : 8); ++sweep) {
    const std::vector<double> before = values;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const SearchRange& r = ranges[k];
      const auto to_value = [&](double x) { return r.logarithmic ? std::exp(x) : x; };
      const double found = minimum_over(
          [&](double x) {
            std::vector<double> trial = values;
            trial[k] = to_value(x);
            return misfit(trial);
          },
          r.logarithmic ? std::log(r.low) : r.low, r.logarithmic ? std::log(r.high) : r.high);
      values[k] = to_value(found);
    }
    double moved = 0.0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      moved = std::max(moved, std::abs(values[k] - before[k]) / std::max(std::abs(values[k]), 1e-12));
    }
    if (moved < 1e-4) break;
  }
}

std::string fitted_report(const std::vector<FitKey>& keys, const std::vector<double>& values,
                          const std::vector<SearchRange>& ranges) {
  if (keys.empty()) return "";
  std::string out = "fitted values:\n";
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const FitKey& key = keys[k];
    const std::string value = key.quantity == FitKey::Quantity::efficiency ? fmt::format("{:.4f}", values[k])
                              : key.is_bandwidth()                       ? bandwidth_text(values[k])
                                                                         : latency_text(values[k]);
    out += fmt::format("  {:<40} {}\n", key.name(), value);
    const SearchRange& r = ranges[k];
    const double span = r.high - r.low;
    if (values[k] > r.high - 1e-3 * span || values[k] < r.low + 1e-3 * span) {
      out += "    (at the end of its range: the measurements ask for more, or less, than it can give)\n";
    }
  }
  return out + "\n";
}

/// The rows' table: the error of the predicted throughput (work per second; for a collective its bus
/// bandwidth), positive where dtsim predicts faster, against each row's bound; then the medians and largest
/// errors, of the fit and test rows apart when the table has both. Counts the rows over their bound.
std::string rows_report(const std::vector<Measurement>& measurements, const std::vector<double>& predicted, bool fitted,
                        int& over_bound) {
  const bool split = std::any_of(measurements.begin(), measurements.end(), [](const Measurement& m) { return m.test; });
  std::string out = fmt::format("{:<52} {:>14} {:>14} {:>8}  {}{}\n", "measurement", "measured s", "predicted s", "error",
                                split ? "split  " : "", "bound");
  std::vector<double> errors;
  std::vector<double> fit_errors;
  std::vector<double> test_errors;
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    const double error = 100.0 * (measurements[i].measured_s / predicted[i] - 1.0);
    errors.push_back(std::abs(error));
    (measurements[i].test ? test_errors : fit_errors).push_back(std::abs(error));
    const std::optional<double> bound = measurements[i].bound_percent;
    const bool over = bound && std::abs(error) > *bound;
    over_bound += over ? 1 : 0;
    out += fmt::format("{:<52} {:>14.6g} {:>14.6g} {:>+7.2f}%  {}{}\n", measurements[i].label, measurements[i].measured_s,
                       predicted[i], error, split ? (measurements[i].test ? "test   " : "fit    ") : "",
                       bound ? fmt::format("{}{:.1f}%", over ? "OVER " : "", *bound) : "");
  }
  out += error_summary("error of the predicted throughput (measured s / predicted s - 1):", errors);
  if (split) {
    out += error_summary(fmt::format("  {} fit row(s){}", fit_errors.size(), fitted ? ", which fitted the values:" : ":"),
                         fit_errors);
    out += error_summary(fmt::format("  {} test row(s){}", test_errors.size(), fitted ? ", which judge them:" : ":"),
                         test_errors);
  }
  if (over_bound > 0) out += fmt::format("{} row(s) over their bound\n", over_bound);
  return out;
}

}  // namespace

Calibration calibrate(const CalibrateOptions& options, const checks::Registries& registries) {
  // A device (/dev/zero), a pipe or a folder would never end or mean nothing: refused before any reader.
  if (const std::string problem = core::input_file_problem(options.measurements, core::kDataFileLimit);
      !problem.empty()) {
    refuse_input(options.measurements.string(), "measurements", "cannot read the measurements: " + problem,
                 "give a CSV table, the output of an nccl-tests program or a profiler trace");
  }
  if (is_profiler_trace(options.measurements)) {
    if (options.output && same_file(*options.output, options.measurements)) {
      refuse_input("dtsim calibrate", "--output",
                   fmt::format("{} is the profiled trace: the fragment would replace it", options.output->string()),
                   kOwnFileHint);
    }
    if (options.output && options.scenario && same_file(*options.output, *options.scenario)) {
      refuse_input(
          "dtsim calibrate", "--output",
          fmt::format("{} is the scenario of the trace: the fragment would replace it", options.output->string()),
          kOwnFileHint);
    }
    return calibrate_from_trace(options, registries);
  }
  if (options.fit.empty() && options.output) {
    refuse_input("dtsim calibrate", "--fit", "a catalog needs something fitted",
                 "for example --fit a100.convolution (an operation class of a device), --fit cpu (every class), or "
                 "--fit dgx_a100.intra_link.bandwidth (a node type's links)");
  }
  std::vector<FitKey> keys;
  for (const std::string& text : options.fit) keys.push_back(parse_key(text));
  const MeasuredRows rows = read_measurements(options, registries);
  refuse_output_among_inputs(options, rows);
  if (!keys.empty() && std::all_of(rows.measurements.begin(), rows.measurements.end(), [](const Measurement& m) { return m.test; })) {
    refuse_input(options.measurements.string(), "split", "every row is a test row: nothing is left to fit on",
                 "mark the rows to fit on with split fit");
  }
  std::vector<double> values;
  std::vector<SearchRange> ranges;
  starting_points(keys, rows.scenarios, values, ranges);
  fit_values(rows, keys, ranges, values, registries);
  Calibration out;
  out.report = fitted_report(keys, values, ranges);
  out.report += rows_report(rows.measurements, predictions(rows, keys, values, registries), !keys.empty(), out.over_bound);
  if (!keys.empty()) out.catalog = catalog_text(options, keys, values, rows.scenarios);
  return out;
}

std::string calibrate_command(const CalibrateOptions& options, const checks::Registries& registries, int* over_bound) {
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
