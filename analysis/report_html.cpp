#include "analysis/report_html.hpp"

#include "analysis/report_assets.hpp"
#include "analysis/run_summary.hpp"
#include "sim/core/version.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::analysis {
namespace {

/// JSON inside a <script> element, with < > & and U+2028/U+2029 written as \u escapes: a name holding
/// "</script>" or "<!--<script>" would otherwise end the element early or put the parser in a state where
/// the page's own </script> no longer closes it, and the two line separators end a JavaScript string. The
/// escapes only occur inside JSON strings, where they mean the same characters.
std::string script_json(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' && (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 900px; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 2em; }
p.caption { color: #555; margin: 0.2em 0 0.6em; }
table { border-collapse: collapse; font-size: 0.85em; } td, th { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
#dtsim-status { color: #b00; white-space: pre-wrap; }
.meta { color: #777; font-size: 0.85em; }
)";

// Draws every chart and records the outcome on <body>: the report's own test reads it back in Chromium.
constexpr const char* kRender = R"(
(function () {
  var errors = [], warnings = [];
  var original = { error: console.error, warn: console.warn };
  console.error = function () { errors.push(Array.prototype.join.call(arguments, ' ')); original.error.apply(console, arguments); };
  console.warn = function () { warnings.push(Array.prototype.join.call(arguments, ' ')); original.warn.apply(console, arguments); };
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  var specs = document.querySelectorAll('script.dtsim-spec');
  var drawn = 0;
  var pending = Array.prototype.map.call(specs, function (node) {
    return vegaEmbed('#' + node.dataset.target, JSON.parse(node.textContent),
                     { actions: false, renderer: 'svg', mode: 'vega-lite' })
      .then(function () { drawn += 1; })
      .catch(function (e) { errors.push(node.dataset.target + ': ' + e); });
  });
  Promise.all(pending).then(function () {
    document.body.dataset.rendered = String(drawn);
    document.body.dataset.errors = String(errors.length);
    document.body.dataset.warnings = String(warnings.length);
    var problems = errors.concat(warnings);
    if (problems.length) document.getElementById('dtsim-status').textContent = 'Some charts could not be drawn:\n' + problems.join('\n');
  });
})();
)";

std::string number_cell(const nlohmann::json& object, const char* key, const char* format = "{:.6g}") {
  if (!object.is_object() || !object.contains(key) || !object.at(key).is_number()) return "-";
  return fmt::format(fmt::runtime(format), object.at(key).get<double>());
}

/// Where real runs' iteration time would be, by dtsim's errors on the validation table's test rows, with
/// what the interval was drawn from as the cell's title.
std::string interval_cell(const nlohmann::json& result) {
  if (!result.contains("interval") || !result.at("interval").is_object()) return "-";
  const nlohmann::json& interval = result.at("interval");
  if (!interval.contains("basis") || !interval.at("basis").is_string() || !interval.contains("test_rows")) return "-";
  return fmt::format("<span title=\"10th-90th percentile of dtsim's errors on {} test rows of {} (docs/validation.md)\">{}-{}</span>",
                     html_escaped(interval.at("test_rows").dump()), html_escaped(interval.at("basis").get<std::string>()),
                     number_cell(interval, "low_s", "{:.4g}"), number_cell(interval, "high_s", "{:.4g}"));
}

/// Timing-only runs first, as a plan reads them: the split, the iteration, throughput, MFU, the fullest device,
/// the pipeline's idle time and, for a budget, the whole run's days. Empty unless every run is timing-only.
std::string timing_summary(const std::vector<ReportRun>& runs) {
  const auto timing = [](const ReportRun& run) {
    const nlohmann::json& result = run.summary.at("result");
    return result.contains("throughput") && result.at("throughput").contains("model_flops_utilization");
  };
  if (runs.empty() || !std::all_of(runs.begin(), runs.end(), timing)) return {};
  std::string out = "<table class=\"summary\"><tr><th>run</th><th>layout</th><th>iteration s</th><th>tokens/s</th>"
                    "<th>samples/s</th><th>MFU</th><th>fullest device GiB</th><th>pipeline idle</th><th>projected days</th></tr>\n";
  for (const ReportRun& run : runs) {
    const nlohmann::json& result = run.summary.at("result");
    const nlohmann::json& rate = result.at("throughput");
    const double iterations = result.at("iterations").get<double>();
    double fullest = 0.0;
    if (result.contains("memory")) {
      for (const auto& device : result.at("memory")) fullest = std::max(fullest, device.value("total_bytes", 0.0));
    }
    std::string layout = result.contains("parallelism") ? describe_layout(result.at("parallelism")) : std::string();
    if (layout.empty()) layout = "data";
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.6g}</td><td>{}</td><td>{}</td><td>{:.1f}%</td><td>{:.1f}</td><td>{}</td><td>{}</td></tr>\n",
                       html_escaped(run.label), html_escaped(layout), iterations > 0 ? result.at("simulated_s").get<double>() / iterations : 0.0,
                       number_cell(rate, "tokens_per_s"), number_cell(rate, "samples_per_s"),
                       100.0 * rate.value("model_flops_utilization", 0.0), fullest / (1024.0 * 1024.0 * 1024.0),
                       result.contains("pipeline") ? fmt::format("{:.1f}%", 100.0 * result.at("pipeline").value("idle_fraction", 0.0)) : "-",
                       result.contains("projection") ? number_cell(result.at("projection"), "days", "{:.4g}") : "-");
  }
  return out + "</table>\n";
}

std::string results_table(const std::vector<ReportRun>& runs) {
  std::string out = "<table><tr><th>run</th><th>simulated s</th><th>iterations</th><th>final val loss</th>"
                    "<th>time to target s</th><th>samples/s</th><th>real runs' iteration s</th><th>waiting</th><th>bytes sent</th>"
                    "<th>energy J</th></tr>\n";
  for (const ReportRun& run : runs) {
    const nlohmann::json& result = run.summary.at("result");
    double waiting = 0.0;
    double workers = 0.0;
    for (const auto& host : run.summary.at("hosts")) {
      if (host.at("role").get<std::string>() != "worker") continue;
      waiting += host.at("wait_s").get<double>();
      workers += 1.0;
    }
    const double simulated = result.at("simulated_s").get<double>();
    std::string target = "-";
    if (result.contains("time_to_target")) {
      target = result.at("time_to_target").value("reached", false) ? number_cell(result.at("time_to_target"), "sim_time_s")
                                                                    : "not reached";
    }
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       html_escaped(run.label), number_cell(result, "simulated_s"), result.at("iterations").dump(),
                       result.contains("final") ? number_cell(result.at("final"), "val_loss", "{:.4f}") : "-", target,
                       result.contains("throughput") ? number_cell(result.at("throughput"), "samples_per_s") : "-",
                       interval_cell(result),
                       workers > 0 && simulated > 0 ? fmt::format("{:.1f}%", 100.0 * waiting / (workers * simulated)) : "-",
                       number_cell(result, "bytes_sent", "{:.4g}"),
                       result.contains("energy") ? number_cell(result.at("energy"), "total_j", "{:.4g}") : "-");
  }
  return out + "</table>\n";
}

}  // namespace

std::string html_escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string page_html(const std::string& title, const std::string& intro, const std::vector<Chart>& charts,
                      const std::string& appendix) {
  const ReportAssets assets = report_assets();
  std::string out = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
                                "<style>{}</style>\n",
                                html_escaped(title), kStyle);
  for (const std::string_view script : {assets.vega, assets.vega_lite, assets.vega_embed}) {
    out += "<script>";
    out += script;
    out += "</script>\n";
  }
  out += fmt::format("</head>\n<body data-charts=\"{}\">\n<h1>{}</h1>\n<p class=\"meta\">dtsim {}</p>\n<p id=\"dtsim-status\"></p>\n",
                     charts.size(), html_escaped(title), core::kDtsimVersion);
  out += intro;
  for (std::size_t i = 0; i < charts.size(); ++i) {
    const Chart& chart = charts[i];
    out += fmt::format("<section>\n<h2>{}</h2>\n<p class=\"caption\">{}</p>\n<div id=\"chart-{}\"></div>\n"
                       "<script type=\"application/json\" class=\"dtsim-spec\" data-target=\"chart-{}\">{}</script>\n</section>\n",
                       html_escaped(chart.title), html_escaped(chart.caption), i, i, script_json(chart.spec));
  }
  out += appendix;
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kRender);
  return out;
}

std::string report_html(const std::vector<ReportRun>& runs) {
  const std::string title = runs.size() == 1 ? "dtsim report: " + runs.front().label
                                             : fmt::format("dtsim report: {} runs", runs.size());
  std::string appendix = "<h2>Scenarios as dtsim read them</h2>\n";
  for (const ReportRun& run : runs) {
    appendix += fmt::format("<details{}><summary>{}</summary>\n<pre>{}</pre>\n</details>\n", runs.size() == 1 ? " open" : "",
                            html_escaped(run.label), html_escaped(yaml_text(run.summary.at("scenario"))));
  }
  return page_html(title, timing_summary(runs) + results_table(runs), run_charts(runs), appendix);
}

}  // namespace dtsim::analysis
