#include "analysis/report_assets.hpp"

#include <cstddef>

extern "C" {
extern const char dtsim_vega_js[];
extern const char dtsim_vega_js_end[];
extern const char dtsim_vega_lite_js[];
extern const char dtsim_vega_lite_js_end[];
extern const char dtsim_vega_embed_js[];
extern const char dtsim_vega_embed_js_end[];
}

namespace dtsim::analysis {
namespace {

std::string_view between(const char* begin, const char* end) {
  return {begin, static_cast<std::size_t>(end - begin)};
}

}  // namespace

ReportAssets report_assets() {
  return {between(dtsim_vega_js, dtsim_vega_js_end), between(dtsim_vega_lite_js, dtsim_vega_lite_js_end),
          between(dtsim_vega_embed_js, dtsim_vega_embed_js_end)};
}

}  // namespace dtsim::analysis
