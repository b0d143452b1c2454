#include "sim/app/plan_command.hpp"

#include "analysis/plan_report.hpp"
#include "analysis/run_summary.hpp"
#include "sim/app/plan_search.hpp"
#include "sim/app/scenario_data.hpp"
#include "sim/app/scenario_resolver.hpp"
#include "sim/app/sweep_runner.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/config_view.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/result_folder.hpp"
#include "sim/scenario/scenario_reader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <set>

namespace dtsim::app {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& key, std::string message, std::string hint) {
  throw core::InputError(core::Diagnostic{{file.string()}, key, std::move(message), std::move(hint)});
}

/// What a plan cannot search: a sweep of its own, a model trained for real, several kinds of node.
void refuse_unplannable(const PlanOptions& options, const scenario::ScenarioDocument& document) {
  const auto& file = options.scenario_file;
  if (document.points.size() != 1) {
    refuse(file, "sweep", "a plan sweeps the splits itself; this scenario has a sweep of its own",
           "plan a scenario without `sweep:` (one of its points, written out)");
  }
  const scenario::Scenario& s = document.points.front();
  if (!s.model.timing_only) {
    refuse(file, "model.kind", fmt::format("a plan splits a layer table (a `profile:` model), and '{}' trains for real",
                                           s.model.kind.value),
           "plan a profile such as profile:llama2_70b; split a model trained for real by hand");
  }
  if (s.cluster.nodes.size() > 1) {
    refuse(file, "cluster.nodes", "a plan grows one kind of node; this cluster has several", "declare one node group");
  }
  if (options.objective != "tokens_per_s" && options.objective != "cost" && options.objective != "energy") {
    refuse("dtsim plan", "--objective", fmt::format("no objective '{}'", options.objective), "tokens_per_s, cost or energy");
  }
  if (options.objective == "energy" && (!s.cluster.device.idle_power || !s.cluster.device.busy_power)) {
    refuse(file, "cluster.device", "--objective energy needs the device's idle and busy power",
           "declare idle_power and busy_power on the device, or choose another objective");
  }
  std::set<int> seen;
  for (const int n : options.devices) {
    const int per_node = s.cluster.nodes.empty() ? 1 : s.cluster.nodes.front().devices;
    if (n % per_node != 0) {
      refuse("dtsim plan", "--gpus", fmt::format("{} devices do not fill whole nodes of {}", n, per_node),
             "give multiples of the devices per node");
    }
    if (!seen.insert(n).second) refuse("dtsim plan", "--gpus", fmt::format("{} is given twice", n), "give each count once");
  }
}

/// The title of the scenario of a device count's best points.
std::string points_title(const PlanOptions& options, int devices) {
  return fmt::format("The best splits of {} over {} devices, written by `dtsim plan`.",
                     options.scenario_file.filename().string(), devices);
}

/// Refuses an output folder holding files a plan does not write.
void refuse_foreign_files(const std::filesystem::path& folder, const std::vector<int>& devices) {
  std::error_code ignored;
  if (!std::filesystem::exists(folder, ignored)) return;
  if (!std::filesystem::is_directory(folder, ignored)) refuse(folder, "", "the output folder of a plan is a file", "give a folder with -o");
  std::set<std::string> own{"plan.csv", "plan_candidates.csv", "report.html"};
  for (const int n : devices) {
    own.insert(fmt::format("{}-devices", n));
    own.insert(fmt::format("{}-devices.yaml", n));
  }
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (own.count(name) == 0 && name.front() != '.') {
      refuse(folder, "", fmt::format("the folder holds '{}', which is not part of a plan", name), "give another folder with -o");
    }
  }
}

analysis::PlanMeasurement measured(const analysis::RunSummary& run, const scenario::Scenario& s, int devices,
                                   const std::string& folder) {
  analysis::PlanMeasurement m;
  m.iteration_s = run.iterations > 0 ? run.simulated_s / static_cast<double>(run.iterations) : 0.0;
  m.tokens_per_s = run.tokens_per_s.value_or(run.samples_per_s.value_or(0.0));
  m.model_flops_utilization = run.model_flops_utilization;
  m.peak_memory_bytes = run.peak_memory_bytes.value_or(0.0);
  const double units = m.tokens_per_s * run.simulated_s;
  if (run.energy_j && units > 0.0) m.energy_per_token_j = *run.energy_j / units;
  if (s.energy.price_per_device_hour && m.tokens_per_s > 0.0) {
    m.cost_per_million_tokens = *s.energy.price_per_device_hour * devices / 3600.0 / m.tokens_per_s * 1e6;
  }
  m.run_folder = folder;
  return m;
}

}  // namespace

namespace {

/// One device count's search, before anything is simulated: the study, and the scenario of its best points.
struct Search {
  analysis::PlanStudy study;
  std::string scenario_text;
  std::optional<scenario::ScenarioDocument> best;  ///< none when no candidate fits
};

Search search(const PlanOptions& options, const scenario::ScenarioFormat& format, const scenario::Scenario& base,
              const models::ModelProfile& profile, const Registries& registries, const std::filesystem::path& folder, int devices) {
  const auto started = std::chrono::steady_clock::now();
  const std::int64_t batch = global_batch(base.training);
  const std::filesystem::path generated = folder / fmt::format("{}-devices.yaml", devices);
  const DeviceSearch found = search_devices(options.space, {options.max_memory_bytes}, devices, batch, base, profile, format,
                                            {options.scenario_file, generated, options.confine}, registries);
  Search out;
  out.study = {.devices = devices, .candidates = static_cast<std::int64_t>(found.candidates.size()) + found.undivided,
               .rows = found.rows, .discards = {}, .objective = options.objective,
               .tokens_unit = profile.shape.sequence > 0 ? "tokens" : "samples"};
  out.study.discards = analysis::count_discards(out.study.rows, found.undivided, batch);
  std::vector<std::string> points;
  for (const analysis::PlanRow& row : out.study.rows) {
    if (!row.discarded.empty() || static_cast<int>(points.size()) == options.top) break;
    if (!row.same_as.empty()) continue;
    points.push_back(sweep_point_yaml(found.candidate_of(row), batch, base));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!options.quiet) {
    fmt::print("{} devices: {} candidates screened in {:.1f} s, {} fit; simulating the best {}\n", devices,
               out.study.candidates, wall, std::count_if(out.study.rows.begin(), out.study.rows.end(),
                                                         [](const analysis::PlanRow& r) { return r.discarded.empty(); }),
               points.size());
  }
  if (points.empty()) return out;
  out.scenario_text = points_scenario(points_title(options, devices), options.scenario_file, points);
  scenario::LoadOptions load;
  load.confine = options.confine;
  out.best = scenario::read_scenario_document_text(format, out.scenario_text, generated.string(), load);
  check_every_point(*out.best, registries);
  return out;
}

/// Simulates a search's best points into folder/<devices>-devices/ and records what each measured.
void simulate(const PlanOptions& options, const scenario::ScenarioFormat& format, const std::filesystem::path& folder,
              Search& found) {
  const int devices = found.study.devices;
  const std::string name = fmt::format("{}-devices", devices);
  core::write_file_atomically(folder / (name + ".yaml"), found.scenario_text);
  const RunCommandOptions run = study_sweep_options(options, folder / (name + ".yaml"), name);
  const auto started = std::chrono::steady_clock::now();
  run_sweep(run, format, *found.best, folder / name);
  std::size_t point = 0;
  for (analysis::PlanRow& row : found.study.rows) {
    if (point == found.best->points.size()) break;
    if (!row.same_as.empty()) continue;
    const scenario::Scenario& s = found.best->points[point++];
    const std::string run_folder = name + "/" + s.sweep_point;
    row.simulated = measured(analysis::read_run_summary(folder / run_folder, format.registries().strategies), s, devices,
                             run_folder);
  }
  if (!options.quiet) {
    fmt::print("{} devices: {} simulated in {:.1f} s\n", devices, found.best->points.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
}

}  // namespace

std::filesystem::path plan_command(const PlanOptions& options, const Registries& registries) {
  const scenario::ScenarioFormat format(registries);
  const scenario::ScenarioDocument document =
      read_document_and_data(format, options.scenario_file, std::nullopt, options.confine);
  refuse_unplannable(options, document);
  const scenario::Scenario& base = document.points.front();
  const models::ModelProfile profile = profile_of(base, registries);
  const std::filesystem::path folder = options.output_folder.value_or(std::filesystem::path("out") / (base.name + "-plan"));
  refuse_foreign_files(folder, options.devices);
  for (const int n : options.devices) core::check_result_folder(folder / fmt::format("{}-devices", n));
  // Every count is searched and its best points checked before anything is written.
  std::vector<Search> searches;
  for (const int n : options.devices) searches.push_back(search(options, format, base, profile, registries, folder, n));
  std::filesystem::create_directories(folder);
  std::vector<analysis::PlanStudy> studies;
  for (Search& found : searches) {
    if (found.best) simulate(options, format, folder, found);
    studies.push_back(std::move(found.study));
  }
  core::write_file_atomically(folder / "plan.csv", analysis::plan_csv(studies));
  core::write_file_atomically(folder / "plan_candidates.csv", analysis::candidates_csv(studies));
  core::write_file_atomically(folder / "report.html", analysis::plan_report_html(base.name, studies));
  if (!options.quiet) {
    fmt::print("\n{}", analysis::plan_table(studies));
    fmt::print("results in {}/: plan.csv, plan_candidates.csv, report.html, and each simulated plan's run\n", folder.string());
  }
  return folder;
}

}  // namespace dtsim::app
