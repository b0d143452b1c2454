#include "analysis/run_summary.hpp"

#include "sim/core/csv.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/input_file.hpp"
#include "sim/scenario/sweep.hpp"
#include "sim/scenario/named_values.hpp"
#include "sim/scenario/parallel_axes.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace dtsim::analysis {
namespace {

std::optional<double> number_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_number()) return std::nullopt;
  return object.at(key).get<double>();
}

/// What the scenario's straggler rules do, briefly: "w3x4" for worker 3 four times slower.
std::string describe_stragglers(const nlohmann::json& scenario) {
  if (!scenario.contains("stragglers")) return "-";
  std::string out;
  for (const auto& rule : scenario.at("stragglers")) {
    std::string who = "all";
    if (rule.contains("workers")) {
      who.clear();
      for (const auto& worker : rule.at("workers")) who += (who.empty() ? "w" : "+") + std::to_string(worker.get<int>());
    }
    std::string what;
    if (rule.contains("slowdown")) what = fmt::format("x{:g}", rule.at("slowdown").get<double>());
    if (rule.contains("distribution")) what += (what.empty() ? "~" : " ~") + rule.at("distribution").get<std::string>();
    if (rule.contains("trace")) what += what.empty() ? "~trace" : " ~trace";
    out += (out.empty() ? "" : " ") + who + what;
  }
  return out.empty() ? "-" : out;
}

std::string describe_architecture(const sync::SyncRegistry& strategies, const std::string& strategy,
                                  const nlohmann::json& architecture) {
  const std::string kind = architecture.at("kind").get<std::string>();
  if (strategies.contains(strategy) && !strategies.find(strategy).factory.exchange.empty()) {
    return strategies.find(strategy).factory.exchange;
  }
  const auto& kinds = scenario::architectures();
  const bool known = std::any_of(kinds.begin(), kinds.end(), [&](const auto& named) { return named.name == kind; });
  if (known && scenario::value_named(kinds, kind) == scenario::Architecture::Hybrid) return "hybrid (" + architecture.at("algorithm").get<std::string>() + ")";
  if (architecture.contains("algorithm")) return architecture.at("algorithm").get<std::string>() + " allreduce";
  return kind;
}


/// What a timing-only run reports for planning: its throughput, memory, pipeline idle time and split.
void read_timing(const nlohmann::json& result, RunSummary& out) {
  if (result.contains("throughput")) {
    const nlohmann::json& rate = result.at("throughput");
    out.samples_per_s = number_at(rate, "samples_per_s");
    out.tokens_per_s = number_at(rate, "tokens_per_s");
    out.model_flops_utilization = number_at(rate, "model_flops_utilization");
  }
  if (result.contains("memory")) {
    for (const auto& device : result.at("memory")) {
      const std::optional<double> total = number_at(device, "total_bytes");
      if (total) out.peak_memory_bytes = std::max(out.peak_memory_bytes.value_or(0.0), *total);
    }
  }
  if (result.contains("pipeline")) out.idle_fraction = number_at(result.at("pipeline"), "idle_fraction");
  // The degrees the run used (the scenario's echo gives data as written, or not at all).
  if (result.contains("parallelism")) out.layout = describe_layout(result.at("parallelism"));
}

}  // namespace

std::string describe_layout(const nlohmann::json& parallelism) {
  const auto degree = [&](scenario::ParallelAxis axis) {
    return parallelism.value(std::string(scenario::axis_entry(axis).name), 1);
  };
  const std::vector<scenario::ParallelAxis>& axes = scenario::declaration_order();
  const auto whole = [&](scenario::ParallelAxis axis) {
    return axis == scenario::ParallelAxis::Data || degree(axis) == 1;
  };
  if (std::all_of(axes.begin(), axes.end(), whole)) return "";
  // The degrees every split lists in the planner's order, then the others above 1 in the order they came to dtsim.
  std::string out;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    const scenario::AxisEntry& entry = scenario::axis_entry(axis);
    if (entry.always_listed) out += fmt::format("{}{}{}", out.empty() ? "" : " ", entry.label, degree(axis));
  }
  for (const scenario::ParallelAxis axis : axes) {
    const scenario::AxisEntry& entry = scenario::axis_entry(axis);
    if (!entry.always_listed && degree(axis) > 1) out += fmt::format(" {}{}", entry.label, degree(axis));
  }
  return out;
}

namespace {

[[noreturn]] void refuse_sweep_table(const std::filesystem::path& file, std::string message) {
  throw core::InputError(core::Diagnostic{core::SourcePosition(file.string()), "", std::move(message),
                                          "give a sweep's folder as `dtsim run` wrote it"});
}

/// The points a sweep's table names, each a plain subfolder of the sweep's, once, at most a sweep's limit: the table
/// is read back, and a point named "../elsewhere" or "/etc" would send the reader out of the sweep.
std::vector<std::filesystem::path> sweep_points(const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / "sweep.csv";
  std::string reason;
  const std::optional<std::string> text = core::read_input_file(file, std::uintmax_t{1} << 30U, reason);
  if (!text) refuse_sweep_table(file, fmt::format("cannot read the sweep's table: {}", reason));
  std::vector<std::filesystem::path> points;
  std::set<std::string> seen;
  std::istringstream lines(*text);
  std::string line;
  std::getline(lines, line);  // header
  for (int number = 2; std::getline(lines, line); ++number) {
    const std::string point = core::csv_cells(line).front();
    if (point.empty()) continue;
    const bool plain = point != "." && point != ".." && point.find('/') == std::string::npos;
    if (!plain || !seen.insert(point).second) {
      refuse_sweep_table(file, fmt::format("line {} names a point that is {}", number,
                                           plain ? "named on an earlier line" : "not a folder of the sweep's own"));
    }
    if (points.size() == scenario::kSweepPointLimit) {
      refuse_sweep_table(file, fmt::format("it names more than the {} points a sweep may have", scenario::kSweepPointLimit));
    }
    points.push_back(folder / point);
  }
  return points.empty() ? std::vector<std::filesystem::path>{folder} : points;
}

}  // namespace

std::vector<std::filesystem::path> run_folders(const std::filesystem::path& folder) {
  std::error_code ignored;
  if (std::filesystem::exists(folder / "summary.json", ignored)) return {folder};
  if (std::filesystem::exists(folder / "scaling.csv", ignored)) {
    std::vector<std::filesystem::path> runs;
    for (const char* mode : {"weak", "strong"}) {
      if (!std::filesystem::exists(folder / mode / "sweep.csv", ignored)) continue;
      for (auto& run : run_folders(folder / mode)) runs.push_back(std::move(run));
    }
    if (!runs.empty()) return runs;
  }
  if (!std::filesystem::exists(folder / "sweep.csv", ignored)) return {folder};  // read_run_summary reports it
  return sweep_points(folder);
}

bool is_cluster_summary(const nlohmann::json& summary) {
  return summary.is_object() && summary.contains("makespan_s") && summary.contains("jobs");
}

void refuse_cluster_summary(const std::filesystem::path& file) {
  const std::filesystem::path folder = file.parent_path();
  throw core::InputError(core::Diagnostic{
      core::SourcePosition(file.string()), "",
      "the summary of a cluster run (jobs sharing the cluster), not of one run",
      fmt::format("give its jobs' folders ({}), or `dtsim report {}` alone for the cluster's page",
                  (folder / "jobs" / "<job>").string(), folder.string())});
}

void refuse_foreign_summary(const nlohmann::json& summary, const std::filesystem::path& file) {
  if (summary.is_object() && summary.contains("dtsim_version")) return;
  throw core::InputError(core::Diagnostic{core::SourcePosition(file.string()), "",
                                          fmt::format("not a dtsim summary: {} without dtsim_version",
                                                      summary.is_object() ? "an object" : summary.type_name()),
                                          "give result folders that `dtsim run` wrote"});
}

RunSummary read_run_summary(const std::filesystem::path& folder, const sync::SyncRegistry& strategies) {
  const std::filesystem::path file = folder / "summary.json";
  std::error_code missing;
  if (!std::filesystem::exists(file, missing)) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(file.string()), "", "no summary.json here",
                                            "give result folders that `dtsim run` wrote (a sweep's folder stands for all its points, a "
                                            "scaling study's for both its sweeps')"});
  }
  std::string reason;
  const std::optional<std::string> text = core::read_input_file(file, std::uintmax_t{1} << 30U, reason);
  if (!text) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(file.string()), "",
                                            fmt::format("cannot read the summary: {}", reason),
                                            "give result folders that `dtsim run` wrote"});
  }
  try {
    const nlohmann::json summary = nlohmann::json::parse(*text);
    // Written by this version all the same: not a summary to run again, but the wrong one to read.
    if (is_cluster_summary(summary)) refuse_cluster_summary(file);
    refuse_foreign_summary(summary, file);
    const nlohmann::json& scenario = summary.at("scenario");
    const nlohmann::json& result = summary.at("result");
    RunSummary out;
    out.sweep_point = summary.at("origin").value("sweep_point", std::string());
    out.run = scenario.at("name").get<std::string>();
    if (!out.sweep_point.empty()) out.run += "[" + out.sweep_point + "]";
    const nlohmann::json& training = scenario.at("training");
    out.strategy = training.at("sync").at("strategy").get<std::string>();
    out.architecture = describe_architecture(strategies, out.strategy, training.at("architecture"));
    out.stragglers = describe_stragglers(scenario);
    out.iterations = result.at("iterations").get<std::int64_t>();
    out.simulated_s = result.at("simulated_s").get<double>();
    out.bytes_sent = result.at("bytes_sent").get<double>();
    if (result.contains("diverged")) out.diverged_at_iteration = result.at("diverged").at("iteration").get<std::int64_t>();
    if (result.contains("final")) {
      out.final_val_loss = number_at(result.at("final"), "val_loss");
      out.final_val_accuracy = number_at(result.at("final"), "val_accuracy");
    }
    if (result.contains("time_to_target")) {
      const nlohmann::json& target = result.at("time_to_target");
      out.target_loss = number_at(target, "target_loss");
      if (target.value("reached", false)) out.time_to_target_s = number_at(target, "sim_time_s");
    }
    if (result.contains("staleness")) out.mean_staleness = number_at(result.at("staleness"), "mean");
    if (result.contains("energy")) {
      out.energy_j = number_at(result.at("energy"), "total_j");
      out.energy_waiting_share = number_at(result.at("energy"), "waiting_share");
      out.cost = number_at(result.at("energy"), "cost");
      out.currency = result.at("energy").value("currency", std::string());
    }
    if (result.contains("projection")) {
      const nlohmann::json& projection = result.at("projection");
      out.projected_days = number_at(projection, "days");
      if (projection.contains("failures")) {
        const nlohmann::json& failures = projection.at("failures");
        out.goodput_expected = number_at(failures.at("expected"), "goodput");
        if (failures.at("drawn").is_object()) out.goodput_drawn = number_at(failures.at("drawn"), "goodput");
      }
    }
    read_timing(result, out);
    double waiting = 0.0;
    int workers = 0;
    for (const auto& host : summary.at("hosts")) {
      if (host.at("role") != "worker") continue;
      waiting += host.at("wait_s").get<double>();
      if (workers++ > 0 || !host.contains("communication_by_kind_s") || out.iterations == 0) continue;
      for (const auto& [kind, seconds] : host.at("communication_by_kind_s").items()) {
        out.communication_by_kind_s[kind] = seconds.get<double>() / static_cast<double>(out.iterations);
      }
    }
    out.waiting_fraction = workers > 0 && out.simulated_s > 0.0 ? waiting / (workers * out.simulated_s) : 0.0;
    return out;
  } catch (const nlohmann::json::exception& error) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(file.string()), "",
                                            fmt::format("not a dtsim summary: {}", error.what()),
                                            "run the scenario again with this version of dtsim"});
  }
}

}  // namespace dtsim::analysis
