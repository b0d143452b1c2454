#pragma once
// The charting libraries report.html inlines (vega, vega-lite, vega-embed from npm, pinned by
// package-lock.json), as built into dtsim.

#include <string_view>

namespace dtsim::analysis {

struct ReportAssets {
  std::string_view vega;
  std::string_view vega_lite;
  std::string_view vega_embed;
};

ReportAssets report_assets();

}  // namespace dtsim::analysis
