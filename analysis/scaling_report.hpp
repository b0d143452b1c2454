#pragma once
// A scaling study's page: speedup and efficiency against the ideal, where the time goes as workers grow,
// the time and epochs to the target loss, and a table with the fitted serial fraction and the Karp-Flatt
// metric per point. Points are read from the runs' summary.json.

#include "analysis/scaling.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dtsim::analysis {

/// What a finished run's summary.json says for a scaling study.
ScalingPoint scaling_point(const nlohmann::json& summary);

/// report.html of the studies of scenario `name`.
std::string scaling_report_html(const std::string& name, const std::vector<ScalingStudy>& studies);

/// The studies as a table for the terminal.
std::string scaling_table(const std::vector<ScalingStudy>& studies);

}  // namespace dtsim::analysis
