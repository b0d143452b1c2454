#include "sim/app/report_command.hpp"

#include "analysis/cluster_report.hpp"
#include "analysis/report_html.hpp"
#include "sim/app/cluster_sweep.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/diagnostic.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace dtsim::app {

std::filesystem::path report_command(std::span<const std::filesystem::path> folders,
                                     const std::optional<std::filesystem::path>& output, const Registries& registries) {
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
  core::write_file_atomically(where, analysis::report_html(runs));
  return where;
}

}  // namespace dtsim::app
