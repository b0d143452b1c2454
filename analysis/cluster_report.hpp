#pragma once
// report.html of a run of several jobs on one cluster (`jobs:`), from its summary.json: the jobs on the devices
// over time (a Gantt chart), the devices busy and the jobs waiting, each job's wait and slowdown, and the
// interference matrix.

#include <nlohmann/json.hpp>

#include <string>

namespace dtsim::analysis {

std::string cluster_report_html(const nlohmann::json& summary);

}  // namespace dtsim::analysis
