#include "sim/app/compare_command.hpp"

#include "analysis/run_columns.hpp"
#include "analysis/run_comparison.hpp"
#include "sim/core/diagnostic.hpp"

#include <vector>

namespace dtsim::app {

std::string compare_command(std::span<const std::filesystem::path> folders, bool csv,
                            std::span<const std::string> columns, const checks::Registries& registries) {
  // Checked before any folder is read: a misspelt column is the first thing to say.
  const std::vector<const analysis::RunColumn*> chosen = analysis::columns_named(columns);
  std::vector<analysis::RunSummary> runs;
  std::vector<core::Diagnostic> problems;
  for (const auto& given : folders) {
    for (const auto& folder : analysis::run_folders(given)) {
      try {
        runs.push_back(analysis::read_run_summary(folder, registries.strategies));
      } catch (const core::InputError& error) {
        problems.insert(problems.end(), error.diagnostics().begin(), error.diagnostics().end());
      }
    }
  }
  if (!problems.empty()) throw core::InputError(std::move(problems));
  if (!columns.empty()) return csv ? analysis::columns_csv(runs, chosen) : analysis::columns_table(runs, chosen);
  return csv ? analysis::comparison_csv(runs) : analysis::comparison_table(runs);
}

}  // namespace dtsim::app
