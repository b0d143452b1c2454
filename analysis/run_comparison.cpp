#include "analysis/run_comparison.hpp"

#include "sim/core/diagnostic.hpp"
#include "sim/core/units.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace dtsim::analysis {
namespace {

std::string optional_cell(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string();
}

/// The point column of a sweep.csv line: its first cell, quoted.
std::string point_of(const std::string& line) {
  if (line.size() < 2 || line.front() != '"') return std::string();
  const std::size_t end = line.find('"', 1);
  return end == std::string::npos ? std::string() : line.substr(1, end - 1);
}

}  // namespace

std::vector<std::filesystem::path> run_folders(const std::filesystem::path& folder) {
  std::error_code ignored;
  if (std::filesystem::exists(folder / "summary.json", ignored)) return {folder};
  std::ifstream sweep(folder / "sweep.csv");
  if (!sweep) return {folder};  // read_run_comparison reports the missing summary
  std::vector<std::filesystem::path> points;
  std::string line;
  std::getline(sweep, line);  // header
  while (std::getline(sweep, line)) {
    if (const std::string point = point_of(line); !point.empty()) points.push_back(folder / point);
  }
  return points.empty() ? std::vector<std::filesystem::path>{folder} : points;
}

RunComparison read_run_comparison(const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / "summary.json";
  std::ifstream in(file);
  if (!in) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(file.string()), "", "no summary.json here",
                                            "give result folders that `dtsim run` wrote (a sweep's folder stands for all its points)"});
  }
  try {
    const nlohmann::json summary = nlohmann::json::parse(in);
    const nlohmann::json& scenario = summary.at("scenario");
    const nlohmann::json& result = summary.at("result");
    RunComparison out;
    out.run = scenario.at("name").get<std::string>();
    if (const auto point = scenario.value("sweep_point", std::string()); !point.empty()) out.run += "[" + point + "]";
    const nlohmann::json& training = scenario.at("training");
    out.strategy = training.at("sync").at("strategy").get<std::string>();
    const nlohmann::json& architecture = training.at("architecture");
    out.architecture = architecture.at("kind").get<std::string>();
    if (out.strategy == "gossip") {
      out.architecture = "peer to peer";  // gossip averages with neighbours; no allreduce runs
    } else if (out.architecture == "hybrid") {
      out.architecture = "hybrid (" + architecture.at("algorithm").get<std::string>() + ")";
    } else if (architecture.contains("algorithm")) {
      out.architecture = architecture.at("algorithm").get<std::string>() + " allreduce";
    }
    out.stragglers = "-";
    if (scenario.contains("stragglers")) {
      out.stragglers.clear();
      for (const auto& rule : scenario.at("stragglers")) {
        out.stragglers += fmt::format("{}w{}x{:g}", out.stragglers.empty() ? "" : " ", rule.at("worker").get<int>(),
                                      rule.at("slowdown").get<double>());
      }
    }
    out.simulated_s = result.at("simulated_s").get<double>();
    if (result.contains("time_to_target")) {
      const nlohmann::json& target = result.at("time_to_target");
      out.target_loss = target.at("target_loss").get<double>();
      if (target.at("reached").get<bool>()) out.time_to_target_s = target.at("sim_time_s").get<double>();
    }
    if (result.contains("final")) out.final_val_loss = result.at("final").at("val_loss").get<double>();
    if (result.contains("staleness")) out.mean_staleness = result.at("staleness").at("mean").get<double>();
    double waiting = 0.0;
    int workers = 0;
    for (const auto& host : summary.at("hosts")) {
      if (host.at("role") != "worker") continue;
      waiting += host.at("wait_s").get<double>();
      ++workers;
    }
    out.waiting_fraction = workers > 0 && out.simulated_s > 0.0 ? waiting / (workers * out.simulated_s) : 0.0;
    out.bytes_sent = result.at("bytes_sent").get<double>();
    return out;
  } catch (const nlohmann::json::exception& error) {
    throw core::InputError(core::Diagnostic{core::SourcePosition(file.string()), "",
                                            fmt::format("not a dtsim summary: {}", error.what()),
                                            "run the scenario again with this version of dtsim"});
  }
}

std::string comparison_table(std::span<const RunComparison> runs) {
  std::size_t width = 3;
  for (const RunComparison& run : runs) width = std::max(width, run.run.size());
  std::string target_header = "to target s";
  for (const RunComparison& run : runs) {
    if (run.target_loss) target_header = fmt::format("to loss {:g} s", *run.target_loss);
  }
  std::string out = fmt::format("{:<{}}  {:<15} {:<22} {:<10} {:>12} {:>14} {:>10} {:>10} {:>8} {:>12}\n", "run", width,
                                "strategy", "architecture", "stragglers", "simulated s", target_header, "final loss",
                                "staleness", "waiting", "sent");
  for (const RunComparison& run : runs) {
    out += fmt::format("{:<{}}  {:<15} {:<22} {:<10} {:>12.6f} {:>14} {:>10} {:>10} {:>7.1f}% {:>12}\n", run.run,
                       width, run.strategy, run.architecture, run.stragglers, run.simulated_s,
                       run.time_to_target_s ? fmt::format("{:.6f}", *run.time_to_target_s)
                                            : (run.target_loss ? "not reached" : "-"),
                       run.final_val_loss ? fmt::format("{:.4f}", *run.final_val_loss) : "-", run.mean_staleness ? fmt::format("{:.2f}", *run.mean_staleness) : "-",
                       100.0 * run.waiting_fraction, core::format_size(core::Bytes(run.bytes_sent)));
  }
  return out;
}

std::string comparison_csv(std::span<const RunComparison> runs) {
  std::string out =
      "run,strategy,architecture,stragglers,simulated_s,time_to_target_s,final_val_loss,mean_staleness,"
      "waiting_fraction,bytes_sent\n";
  for (const RunComparison& run : runs) {
    out += fmt::format("{},{},{},{},{:.9g},{},{},{},{:.6f},{:.0f}\n", run.run, run.strategy, run.architecture,
                       run.stragglers, run.simulated_s, optional_cell(run.time_to_target_s, "{:.9g}"),
                       optional_cell(run.final_val_loss, "{:.9g}"), optional_cell(run.mean_staleness, "{:.9g}"), run.waiting_fraction,
                       run.bytes_sent);
  }
  return out;
}

}  // namespace dtsim::analysis
