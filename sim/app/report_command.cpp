#include "sim/app/report_command.hpp"

#include "analysis/report_html.hpp"
#include "sim/core/atomic_file.hpp"

#include <vector>

namespace dtsim::app {

std::filesystem::path report_command(std::span<const std::filesystem::path> folders,
                                     const std::optional<std::filesystem::path>& output, const Registries& registries) {
  const std::vector<analysis::ReportRun> runs =
      analysis::read_report_runs(std::vector<std::filesystem::path>(folders.begin(), folders.end()), registries.strategies);
  const std::filesystem::path where =
      output.value_or(folders.size() == 1 ? folders.front() / "report.html" : std::filesystem::path("report.html"));
  core::write_file_atomically(where, analysis::report_html(runs));
  return where;
}

}  // namespace dtsim::app
