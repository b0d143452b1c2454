#include "sim/app/report_command.hpp"

#include "analysis/cluster_report.hpp"
#include "analysis/report_html.hpp"
#include "analysis/run_summary.hpp"
#include "sim/app/cluster_sweep.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace dtsim::app {
namespace {

/// The page of `runs`, read from `folders`. The page reads more of each summary than reading the runs checks (a
/// host's name, a figure's type), so a summary damaged there fails while it is drawn: the run whose page alone
/// fails is named then, as compare names a summary it cannot read.
std::string report_page(const std::vector<analysis::ReportRun>& runs, std::span<const std::filesystem::path> folders) {
  try {
    return analysis::report_html(runs);
  } catch (const nlohmann::json::exception& error) {
    std::vector<std::filesystem::path> read;
    for (const auto& given : folders) {
      for (auto& folder : analysis::run_folders(given)) read.push_back(std::move(folder));
    }
    std::filesystem::path damaged = read.size() == 1 ? read.front() : std::filesystem::path();
    for (std::size_t i = 0; i < runs.size() && i < read.size() && damaged.empty(); ++i) {
      try {
        static_cast<void>(analysis::report_html({runs[i]}));
      } catch (const nlohmann::json::exception&) {
        damaged = read[i];
      }
    }
    core::Diagnostic diagnostic;
    diagnostic.where.file = damaged.empty() ? std::string("dtsim report") : (damaged / "summary.json").string();
    diagnostic.message = fmt::format("not a dtsim summary: {}", error.what());
    diagnostic.hint = "run the scenario again with this version of dtsim";
    throw core::InputError(std::move(diagnostic));
  }
}

}  // namespace

std::filesystem::path report_command(std::span<const std::filesystem::path> folders,
                                     const std::optional<std::filesystem::path>& output,
                                     const checks::Registries& registries) {
  // One cluster run (several jobs): its own page, from its summary.
  const std::optional<nlohmann::json> cluster = folders.size() == 1 ? cluster_summary(folders.front()) : std::nullopt;
  if (cluster) {
    const std::filesystem::path where = output.value_or(folders.front() / "report.html");
    std::string page;
    try {
      page = analysis::cluster_report_html(*cluster);
    } catch (const nlohmann::json::exception& error) {
      core::Diagnostic diagnostic;
      diagnostic.where.file = (folders.front() / "summary.json").string();
      diagnostic.message = std::string("not the summary of a cluster run: ") + error.what();
      diagnostic.hint = "run the scenario again with this version of dtsim";
      throw core::InputError(std::move(diagnostic));
    }
    core::write_file_atomically(where, page);
    return where;
  }
  const std::vector<analysis::ReportRun> runs =
      analysis::read_report_runs(std::vector<std::filesystem::path>(folders.begin(), folders.end()), registries.strategies);
  const std::filesystem::path where =
      output.value_or(folders.size() == 1 ? folders.front() / "report.html" : std::filesystem::path("report.html"));
  core::write_file_atomically(where, report_page(runs, folders));
  return where;
}

}  // namespace dtsim::app
