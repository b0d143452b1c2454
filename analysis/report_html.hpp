#pragma once
// report.html: one self-contained page (vega, vega-lite and vega-embed inlined, every chart's data in the
// page) that opens offline. The page records whether its charts rendered: <body data-charts="N"
// data-rendered="N" data-errors="0" data-warnings="0"> once drawing is done, the errors and warnings listed
// at the top when there are any.

#include "analysis/report_charts.hpp"
#include "analysis/report_data.hpp"

#include <string>
#include <vector>

namespace dtsim::analysis {

/// A page of `charts` under `title`, with `intro` and `appendix` (HTML) before and after them.
std::string page_html(const std::string& title, const std::string& intro, const std::vector<Chart>& charts,
                      const std::string& appendix);

/// The report of one run or several on shared axes: a table of their results, the charts, and each run's
/// resolved scenario.
std::string report_html(const std::vector<ReportRun>& runs);

/// `text` with &, <, > and " escaped for HTML.
std::string html_escaped(const std::string& text);

}  // namespace dtsim::analysis
