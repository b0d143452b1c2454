// _dtsim, the C++ half of the dtsim Python package. SimGrid allows one engine per process and a notebook runs
// many scenarios, so every run, sweep, scaling study, plan and collective timing is simulated in a child process
// of its own (call_isolated); the commands that only read files (validate, explain, compare, report, list) run
// here. Each function returns (outcome, text), and the Python half (dtsim/__init__.py) raises the matching
// exception: outcomes are "ok", "input" (bad input: text is dtsim's error report), "crashed" and "timed_out";
// validate's records come back as ("ok", a list of dicts) instead of text. Paths come in as std::filesystem::path
// (str or bytes, encoded as os.fsencode does) and go back in texts decoded as os.fsdecode does (fs_text).

#include "sim/app/collective_command.hpp"
#include "sim/app/compare_command.hpp"
#include "sim/app/document_commands.hpp"
#include "sim/app/isolated_call.hpp"
#include "sim/app/list_command.hpp"
#include "sim/app/plan_command.hpp"
#include "sim/app/report_command.hpp"
#include "sim/app/run_command.hpp"
#include "sim/app/scale_command.hpp"
#include "sim/checks/registries.hpp"
#include "sim/checks/scenario_data.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/version.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

using dtsim::app::IsolatedOutcome;
/// (outcome, text), as the Python half takes it.
using Outcome = py::tuple;

/// `text` as Python's str, decoded as os.fsdecode decodes: texts name files (a result folder, a report's FILE:LINE),
/// and a POSIX path is bytes that need not be UTF-8. Bytes that are not UTF-8 become surrogates, which
/// os.fsencode (and a path argument here) turns back into the same bytes, where strict UTF-8 would raise.
py::str fs_text(const std::string& text) {
  PyObject* decoded = PyUnicode_DecodeFSDefaultAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

Outcome outcome_of(const std::string& kind, const std::string& text) { return py::make_tuple(kind, fs_text(text)); }

std::chrono::milliseconds limit_of(const std::optional<double>& timeout_s) {
  constexpr std::chrono::milliseconds kYear = std::chrono::hours(24 * 365);  // "no limit", and the most
  if (!timeout_s || !(*timeout_s * 1000.0 < static_cast<double>(kYear.count()))) return kYear;
  return std::chrono::milliseconds(static_cast<std::int64_t>(*timeout_s * 1000.0));
}

/// Runs `work` in a child process and returns its text (a folder it wrote, a report). The GIL is released
/// meanwhile, and a keyboard interrupt stops the child and is raised here. `progress` (None or a callable)
/// is called with each progress line the child sends; an exception it raises stops the child and is raised here.
Outcome in_child(const std::function<std::string(const dtsim::app::LineSink&)>& work,
                 const std::optional<double>& timeout_s, const py::object& progress) {
  IsolatedOutcome outcome;
  bool progress_failed = false;
  {
    const py::gil_scoped_release released;
    dtsim::app::LineSink on_line;
    if (!progress.is_none()) {
      on_line = [&](const std::string& line) {
        const py::gil_scoped_acquire held;
        if (progress_failed) return;
        try {
          progress(fs_text(line));
        } catch (py::error_already_set& error) {
          error.restore();  // raised below, once the child is stopped
          progress_failed = true;
        }
      };
    }
    outcome = dtsim::app::call_isolated_reporting(
        [&](const dtsim::app::LineSink& send) -> std::string {
          try {
            return "F" + work(send);
          } catch (const dtsim::core::InputError& error) {
            return "E" + std::string(error.what());
          }
        },
        limit_of(timeout_s),
        [&] {
          const py::gil_scoped_acquire held;
          return progress_failed || PyErr_CheckSignals() != 0;
        },
        on_line);
  }
  // A notebook's interrupt goes to the whole process group: the child may have died of it first.
  if (progress_failed || outcome.status == IsolatedOutcome::Status::stopped || PyErr_CheckSignals() != 0) {
    throw py::error_already_set();
  }
  switch (outcome.status) {
    case IsolatedOutcome::Status::finished:
      return outcome_of(outcome.text.starts_with("E") ? "input" : "ok", outcome.text.substr(1));
    case IsolatedOutcome::Status::threw:
      return outcome_of("crashed", "internal error: " + outcome.text);
    case IsolatedOutcome::Status::crashed:
      return outcome_of("crashed", "the simulation " + outcome.text);
    case IsolatedOutcome::Status::timed_out:
      return outcome_of("timed_out", "the simulation is " + outcome.text);
    case IsolatedOutcome::Status::stopped:
      break;
  }
  return outcome_of("crashed", "the simulation ended in an unknown way");
}

/// Calls `work` here, turning bad input into an outcome.
Outcome here(const std::function<std::string()>& work) {
  try {
    return outcome_of("ok", work());
  } catch (const dtsim::core::InputError& error) {
    return outcome_of("input", error.what());
  }
}

/// --confine's folder, canonical; throws core::InputError where it names no folder.
std::optional<std::filesystem::path> confined_to(const std::optional<std::filesystem::path>& confine) {
  if (!confine) return std::nullopt;
  return dtsim::checks::confinement_folder(*confine);
}

/// What run, scale and plan take alike from Python into their options: the scenario, the output folder, the seed,
/// the simulations at once, --force and the executable sweeps start; quiet, since progress comes back as lines.
template <class Options>
void set_shared_options(Options& options, const std::filesystem::path& scenario,
                        const std::optional<std::filesystem::path>& output, const std::optional<std::uint64_t>& seed,
                        int jobs, bool force, const std::filesystem::path& executable) {
  options.scenario_file = scenario;
  options.output_folder = output;
  options.seed = seed;
  options.jobs = jobs;
  options.force = force;
  options.executable = executable;
  options.quiet = true;
}

Outcome run(const std::filesystem::path& scenario, const std::optional<std::filesystem::path>& output,
            const std::optional<std::uint64_t>& seed, const std::optional<std::string>& point, bool report, bool force,
            int jobs, bool every_rank, bool sweep_only, const std::filesystem::path& executable,
            const std::optional<double>& timeout_s, const py::object& progress,
            const std::optional<std::filesystem::path>& confine, int threads, bool values_by_message) {
  dtsim::app::RunCommandOptions options;
  set_shared_options(options, scenario, output, seed, jobs, force, executable);
  options.point = point;
  options.report = report;
  options.every_rank = every_rank;
  options.sweep_only = sweep_only;
  options.threads = threads;
  options.values_by_message = values_by_message;
  return in_child(
      [options, confine](const dtsim::app::LineSink& send) {
        dtsim::app::RunCommandOptions reporting = options;
        reporting.progress_to = send;
        reporting.confine = confined_to(confine);
        return dtsim::app::run_command(reporting, dtsim::checks::make_builtin_registries()).string();
      },
      timeout_s, progress);
}

Outcome scale(const std::filesystem::path& scenario, const std::vector<int>& workers, const std::string& mode, bool plan,
              const std::optional<std::filesystem::path>& output, const std::optional<std::uint64_t>& seed, int jobs,
              bool force, const std::filesystem::path& executable, const std::optional<double>& timeout_s,
              const py::object& progress, const std::optional<std::filesystem::path>& confine) {
  dtsim::app::ScaleOptions options;
  set_shared_options(options, scenario, output, seed, jobs, force, executable);
  options.workers = workers;
  options.mode = mode;
  options.plan = plan;
  return in_child(
      [options, confine](const dtsim::app::LineSink& send) {
        dtsim::app::ScaleOptions reporting = options;
        reporting.progress_to = send;
        reporting.confine = confined_to(confine);
        return dtsim::app::scale_command(reporting, dtsim::checks::make_builtin_registries()).string();
      },
      timeout_s, progress);
}

Outcome plan(const std::filesystem::path& scenario, const std::vector<int>& gpus, int top, const std::string& objective,
             const std::map<std::string, int>& degrees, const std::optional<int>& microbatches,
             const std::optional<int>& zero,
             const std::optional<std::string>& recomputation, const std::optional<std::string>& schedule,
             bool keep_placement, const std::optional<std::string>& max_memory,
             const std::optional<std::filesystem::path>& output, const std::optional<std::uint64_t>& seed, int jobs,
             bool force, const std::filesystem::path& executable, const std::optional<double>& timeout_s,
             const py::object& progress, const std::optional<std::filesystem::path>& confine) {
  dtsim::app::PlanOptions options;
  set_shared_options(options, scenario, output, seed, jobs, force, executable);
  options.devices = gpus;
  options.top = top;
  options.objective = objective;
  dtsim::app::PlanSpaceArguments space;
  space.degrees = degrees;
  space.microbatches = microbatches;
  space.zero = zero;
  space.recomputation = recomputation;
  space.schedule = schedule;
  space.keep_placement = keep_placement;
  space.max_memory = max_memory;
  return in_child(
      [options, space, confine](const dtsim::app::LineSink& send) {
        dtsim::app::PlanOptions reporting = options;
        // Read as `dtsim plan` reads its flags, and refused in its words: the keywords are its flags.
        reporting.space = dtsim::app::plan_space(space, "dtsim plan");
        reporting.max_memory_bytes = dtsim::app::memory_cap(space, "dtsim plan");
        reporting.progress_to = send;
        reporting.confine = confined_to(confine);
        return dtsim::app::plan_command(reporting, dtsim::checks::make_builtin_registries()).string();
      },
      timeout_s, progress);
}

Outcome collective(const std::string& operation, const std::string& algorithm, const std::optional<int>& ranks,
                   const std::string& sizes, const std::optional<std::filesystem::path>& scenario,
                   const std::string& topology, const std::string& bandwidth, const std::string& latency,
                   const std::string& network_model, const std::optional<std::string>& library,
                   const std::optional<double>& timeout_s) {
  dtsim::app::CollectiveOptions options;
  options.operation = operation;
  options.algorithm = algorithm;
  options.ranks = ranks;
  options.sizes = sizes;
  options.scenario = scenario;
  options.topology = topology;
  options.bandwidth = bandwidth;
  options.latency = latency;
  options.network_model = network_model;
  options.library = library;
  options.json = true;
  return in_child(
      [options](const dtsim::app::LineSink&) {
        return dtsim::app::collective_command(options, dtsim::checks::make_builtin_registries());
      },
      timeout_s, py::none());
}

/// {"file", "line", "column"}: a place in a scenario file, as a record names it.
py::dict position_record(const dtsim::core::SourcePosition& where) {
  py::dict out;
  out["file"] = fs_text(where.file);
  out["line"] = where.line;
  out["column"] = where.column;
  return out;
}

/// The problems as `dtsim validate --json` gives them (app::diagnostics_json: the same fields, in the same order),
/// as dicts, their texts decoded as fs_text decodes: a file's name comes back as it was given, UTF-8 or not.
py::list diagnostic_records(const std::vector<dtsim::core::Diagnostic>& diagnostics) {
  py::list out;
  for (const dtsim::core::Diagnostic& d : diagnostics) {
    py::dict record = position_record(d.where);
    record["key"] = fs_text(d.key);
    record["message"] = fs_text(d.message);
    record["hint"] = fs_text(d.hint);
    py::list sites;
    for (const dtsim::core::SourcePosition& site : d.where.included_from) sites.append(position_record(site));
    record["included_from"] = sites;
    out.append(record);
  }
  return out;
}

/// ("ok", report) or ("input", every error); with `records`, ("ok", the errors as records), an empty list where every
/// file is valid. A folder `confine` does not name is bad input either way: no file was read.
Outcome validate(const std::vector<std::filesystem::path>& files, const std::optional<std::filesystem::path>& confine,
                 bool records) {
  dtsim::app::ValidateResult result;
  try {
    result = dtsim::app::validate_command(files, dtsim::checks::make_builtin_registries(), confined_to(confine));
  } catch (const dtsim::core::InputError& error) {
    return outcome_of("input", error.what());
  }
  if (records) return py::make_tuple("ok", diagnostic_records(result.diagnostics));
  return result.ok ? outcome_of("ok", result.report) : outcome_of("input", result.errors);
}

Outcome explain(const std::filesystem::path& file, const std::optional<std::filesystem::path>& confine) {
  return here([&] {
    return dtsim::app::explain_command(file, dtsim::checks::make_builtin_registries(), confined_to(confine));
  });
}

Outcome compare(const std::vector<std::filesystem::path>& folders) {
  return here(
      [&] { return dtsim::app::compare_command(folders, /*csv=*/true, {}, dtsim::checks::make_builtin_registries()); });
}

Outcome report(const std::vector<std::filesystem::path>& folders, const std::optional<std::filesystem::path>& output) {
  return here(
      [&] { return dtsim::app::report_command(folders, output, dtsim::checks::make_builtin_registries()).string(); });
}

Outcome catalog(const std::string& topic) {
  return here([&] { return dtsim::app::list_command(dtsim::checks::make_builtin_registries(), topic); });
}

}  // namespace

PYBIND11_MODULE(_dtsim, module) {
  module.doc() = "dtsim's simulator; use the dtsim package, which reads the results into pandas";
  module.attr("version") = std::string(dtsim::core::kDtsimVersion);
  module.attr("built_executable") = fs_text(DTSIM_BUILT_EXECUTABLE);
  module.attr("catalog_topics") = dtsim::app::list_topics();
  module.def("run", &run, py::arg("scenario"), py::arg("output"), py::arg("seed"), py::arg("point"), py::arg("report"),
             py::arg("force"), py::arg("jobs"), py::arg("every_rank"), py::arg("sweep_only"), py::arg("executable"),
             py::arg("timeout_s"), py::arg("progress"), py::arg("confine"), py::arg("threads"),
             py::arg("values_by_message"));
  module.def("scale", &scale, py::arg("scenario"), py::arg("workers"), py::arg("mode"), py::arg("plan"), py::arg("output"),
             py::arg("seed"), py::arg("jobs"), py::arg("force"), py::arg("executable"), py::arg("timeout_s"),
             py::arg("progress"), py::arg("confine"));
  module.def("plan", &plan, py::arg("scenario"), py::arg("gpus"), py::arg("top"), py::arg("objective"), py::arg("degrees"),
             py::arg("microbatches"), py::arg("zero"),
             py::arg("recomputation"), py::arg("schedule"), py::arg("keep_placement"), py::arg("max_memory"),
             py::arg("output"), py::arg("seed"), py::arg("jobs"), py::arg("force"), py::arg("executable"),
             py::arg("timeout_s"), py::arg("progress"), py::arg("confine"));
  module.def("collective", &collective, py::arg("operation"), py::arg("algorithm"), py::arg("ranks"), py::arg("sizes"),
             py::arg("scenario"), py::arg("topology"), py::arg("bandwidth"), py::arg("latency"),
             py::arg("network_model"), py::arg("library"), py::arg("timeout_s"));
  module.def("validate", &validate, py::arg("files"), py::arg("confine"), py::arg("records"));
  module.def("explain", &explain, py::arg("file"), py::arg("confine"));
  module.def("compare", &compare, py::arg("folders"));
  module.def("report", &report, py::arg("folders"), py::arg("output"));
  module.def("catalog", &catalog, py::arg("topic"));
}
