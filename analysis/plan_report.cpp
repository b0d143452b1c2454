#include "analysis/plan_report.hpp"

#include "analysis/report_html.hpp"
#include "sim/core/csv.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace dtsim::analysis {
namespace {

using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string optional_number(const std::optional<double>& value, const char* format = "{:.6g}") {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string();
}

/// Better first by the objective; ties by the estimate, then the split's name, so the order is total.
bool better(const PlanRow& a, const PlanRow& b, const std::string& objective) {
  const auto key = [&](const PlanRow& row) {
    const PlanMeasurement& m = *row.simulated;
    // A run without an energy figure (plan refuses the objective without an `energy:` section) ranks last, never by
    // its throughput in the others' place.
    if (objective == "energy") return m.energy_per_token_j.value_or(std::numeric_limits<double>::infinity());
    if (objective == "cost") return m.cost_per_million_tokens.value_or(row.devices / m.tokens_per_s);
    return -m.tokens_per_s;
  };
  if (key(a) != key(b)) return key(a) < key(b);
  if (a.simulated->peak_memory_bytes != b.simulated->peak_memory_bytes) {
    return a.simulated->peak_memory_bytes < b.simulated->peak_memory_bytes;
  }
  if (a.devices != b.devices) return a.devices < b.devices;
  return a.split < b.split;
}

/// The candidates no other beats in both throughput and memory, by their estimates.
std::vector<bool> front_of(const std::vector<PlanRow>& rows) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].discarded.empty()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (rows[a].memory_bytes != rows[b].memory_bytes) return rows[a].memory_bytes < rows[b].memory_bytes;
    return rows[a].estimate_tokens_per_s > rows[b].estimate_tokens_per_s;
  });
  std::vector<bool> out(rows.size(), false);
  double best = -1.0;
  for (const std::size_t i : order) {
    if (rows[i].estimate_tokens_per_s > best) {
      out[i] = true;
      best = rows[i].estimate_tokens_per_s;
    }
  }
  return out;
}

Chart throughput_against_memory(const std::vector<PlanStudy>& studies) {
  json values = json::array();
  for (const PlanStudy& study : studies) {
    const std::vector<bool> front = front_of(study.rows);
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < study.rows.size(); ++i) {
      const PlanRow& row = study.rows[i];
      if (!row.discarded.empty() || (drawn++ >= kDrawnCandidates && !front[i])) continue;
      values.push_back({{"devices", std::to_string(row.devices)}, {"split", row.split}, {"memory", row.memory_bytes / kGiB},
                        {"rate", row.estimate_tokens_per_s}, {"kind", front[i] ? "estimate, on the front" : "estimate"}});
      if (row.simulated) {
        values.push_back({{"devices", std::to_string(row.devices)}, {"split", row.split},
                          {"memory", row.simulated->peak_memory_bytes / kGiB}, {"rate", row.simulated->tokens_per_s},
                          {"kind", "simulated"}});
      }
    }
  }
  const std::string unit = studies.empty() ? "tokens" : studies.front().tokens_unit;
  json spec = {
      {"description", "throughput against memory"}, {"width", 660}, {"height", 320}, {"data", {{"values", values}}},
      {"mark", {{"type", "point"}, {"filled", true}}},
      {"encoding",
       {{"x", {{"field", "memory"}, {"type", "quantitative"}, {"title", "largest device's memory (GiB)"}}},
        {"y", {{"field", "rate"}, {"type", "quantitative"}, {"title", unit + " per second"}}},
        {"color", {{"field", "devices"}, {"type", "nominal"}, {"title", "devices"}}},
        {"shape", {{"field", "kind"}, {"type", "nominal"}, {"title", "figure"},
                   {"scale", {{"domain", {"estimate", "estimate, on the front", "simulated"}},
                              {"range", {"circle", "diamond", "triangle-up"}}}}}},
        {"size", {{"condition", {{"test", "datum.kind !== 'estimate'"}, {"value", 90}}}, {"value", 14}}},
        {"tooltip", json::array({{{"field", "split"}, {"title", "split"}}, {{"field", "kind"}, {"title", "figure"}},
                                 {{"field", "rate"}, {"title", unit + "/s"}, {"format", ".4s"}},
                                 {{"field", "memory"}, {"title", "GiB"}, {"format", ".1f"}}})}}}};
  return Chart{"Throughput against memory",
               fmt::format("Every candidate that fits, by its closed-form estimate (at most {} a device count, and "
                           "the whole front: none faster with less memory), and the simulated best (triangles).",
                           kDrawnCandidates),
               std::move(spec)};
}

Chart discards_chart(const std::vector<PlanStudy>& studies) {
  json values = json::array();
  for (const PlanStudy& study : studies) {
    for (const PlanDiscard& d : study.discards) {
      values.push_back({{"devices", std::to_string(study.devices)}, {"reason", d.reason}, {"count", d.count}});
    }
  }
  json spec = {{"description", "discarded candidates by reason"}, {"width", 520}, {"height", {{"step", 18}}},
               {"data", {{"values", values}}}, {"mark", "bar"},
               {"encoding", {{"y", {{"field", "reason"}, {"type", "nominal"}, {"title", nullptr}, {"sort", "-x"}}},
                             {"x", {{"field", "count"}, {"type", "quantitative"}, {"title", "candidates discarded"},
                                    {"stack", "zero"}}},
                             {"color", {{"field", "devices"}, {"type", "nominal"}, {"title", "devices"}}},
                             {"tooltip", json::array({{{"field", "reason"}}, {{"field", "devices"}}, {{"field", "count"}}})}}}};
  return Chart{"Why candidates were discarded", "Counted by the check that refused each (the first, where several would).",
               std::move(spec)};
}

std::string plan_cells(const PlanRow& row) {
  const PlanMeasurement& m = *row.simulated;
  return fmt::format("{:.6g},{:.6g},{},{:.6g},{},{}", m.iteration_s, m.tokens_per_s, optional_number(m.model_flops_utilization),
                     m.peak_memory_bytes, optional_number(m.energy_per_token_j), optional_number(m.cost_per_million_tokens));
}

std::string split_cells(const PlanRow& row) {
  std::string out = fmt::format("{},{}", row.devices, core::csv_field(row.split));
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    // No degree of an axis carved out of the data degree (expert) was tried for a split counted undivided.
    const bool tried = !row.degrees_only || !scenario::axis_entry(axis).carved_from;
    out += tried ? fmt::format(",{}", row.degrees[scenario::axis_index(axis)]) : std::string(",");
  }
  // Nor a micro-batch count, ZeRO stage, recomputation, schedule or placement.
  if (row.degrees_only) return out + ",,,,,,";
  return out + fmt::format(",{},{},{},{},{},{}", row.microbatches, row.zero, row.recomputation, row.schedule,
                           row.virtual_stages, row.placement);
}

/// The degrees' columns of plan.csv and plan_candidates.csv, in the planner's order: "tensor,pipeline,...,data".
std::string degree_columns() {
  std::string out;
  for (const scenario::ParallelAxis axis : scenario::listing_order()) {
    out += (out.empty() ? "" : ",") + std::string(scenario::axis_entry(axis).name);
  }
  return out;
}

/// One row of plan_candidates.csv.
std::string candidate_line(const PlanRow& row) {
  const auto number = [](double value) { return value > 0.0 ? fmt::format("{:.6g}", value) : std::string(); };
  return fmt::format("{},{},{},{},{},{},{},{}\n", split_cells(row), number(row.memory_bytes), number(row.estimate_s),
                     number(row.estimate_tokens_per_s), core::csv_field(row.same_as), row.simulated ? "yes" : "",
                     core::csv_field(row.discarded), core::csv_field(row.detail));
}

std::string html_plans(const std::vector<PlanStudy>& studies) {
  std::string out = "<h2>The simulated plans, best first</h2>\n<table><tr><th>rank</th><th>devices</th><th>split</th>"
                    "<th>estimate s</th><th>iteration s</th><th>per second</th><th>MFU</th><th>memory GiB</th></tr>\n";
  int rank = 0;
  for (const PlanRow* row : ranked_plans(studies, studies.empty() ? "" : studies.front().objective)) {
    const PlanMeasurement& m = *row->simulated;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.4g}</td><td>{:.4g}</td><td>{:.4g}</td><td>{}</td><td>{:.1f}</td></tr>\n",
                       ++rank, row->devices, html_escaped(row->split), row->estimate_s, m.iteration_s, m.tokens_per_s,
                       m.model_flops_utilization ? fmt::format("{:.1f}%", 100.0 * *m.model_flops_utilization) : "-",
                       m.peak_memory_bytes / kGiB);
  }
  out += "</table>\n<h2>Discarded, by reason</h2>\n<table><tr><th>devices</th><th>reason</th><th>candidates</th><th>for example</th></tr>\n";
  for (const PlanStudy& study : studies) {
    for (const PlanDiscard& d : study.discards) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", study.devices, html_escaped(d.reason), d.count,
                         html_escaped(d.example));
    }
  }
  return out + "</table>\n";
}

}  // namespace

std::vector<PlanDiscard> count_discards(const std::vector<PlanRow>& rows, std::int64_t undivided, std::int64_t batch) {
  std::map<std::string, PlanDiscard> by_reason;
  for (const PlanRow& row : rows) {
    if (row.discarded.empty()) continue;
    // The first candidate discarded for a reason is its example.
    const auto [entry, fresh] = by_reason.try_emplace(row.discarded, PlanDiscard{row.discarded, 0, row.split + ": " + row.detail});
    ++entry->second.count;
  }
  return count_discards(std::move(by_reason), undivided, batch);
}

std::vector<PlanDiscard> count_discards(std::map<std::string, PlanDiscard> by_reason, std::int64_t undivided,
                                        std::int64_t batch) {
  if (undivided > 0) {
    by_reason["training.batch"] = {"training.batch", undivided,
                                   fmt::format("data-parallel degrees that do not divide the batch of {}", batch)};
  }
  std::vector<PlanDiscard> out;
  for (auto& [reason, d] : by_reason) out.push_back(std::move(d));
  std::stable_sort(out.begin(), out.end(), [](const PlanDiscard& a, const PlanDiscard& b) { return a.count > b.count; });
  return out;
}

std::vector<const PlanRow*> ranked_plans(const std::vector<PlanStudy>& studies, const std::string& objective) {
  std::vector<const PlanRow*> out;
  for (const PlanStudy& study : studies) {
    for (const PlanRow& row : study.rows) {
      if (row.simulated) out.push_back(&row);
    }
  }
  std::sort(out.begin(), out.end(), [&](const PlanRow* a, const PlanRow* b) { return better(*a, *b, objective); });
  return out;
}

std::string plan_csv(const std::vector<PlanStudy>& studies) {
  std::string out = "rank,devices,split," + degree_columns() +
                    ",microbatches,zero,recomputation,schedule,virtual_stages,placement,estimate_s,iteration_s,per_s,"
                    "model_flops_utilization,peak_memory_bytes,energy_per_unit_j,cost_per_million,run\n";
  int rank = 0;
  for (const PlanRow* row : ranked_plans(studies, studies.empty() ? "" : studies.front().objective)) {
    out += fmt::format("{},{},{:.6g},{},{}\n", ++rank, split_cells(*row), row->estimate_s, plan_cells(*row),
                       core::csv_field(row->simulated->run_folder));
  }
  return out;
}

RowSpill::RowSpill()
    : file_(std::tmpfile(), [](std::FILE* file) {
        if (file != nullptr) std::fclose(file);
      }) {
  if (!file_) {
    throw std::runtime_error(fmt::format("no temporary file for a plan's candidates: {}", std::strerror(errno)));
  }
}

void RowSpill::add(const PlanRow& row) {
  const std::string line = candidate_line(row);
  if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size()) {
    throw std::runtime_error(fmt::format("a plan's candidates could not be set aside: {}", std::strerror(errno)));
  }
  ++rows_;
}

void RowSpill::copy_to(std::ostream& out) const {
  std::fflush(file_.get());
  std::rewind(file_.get());
  std::vector<char> buffer(1 << 16);
  for (std::size_t read = 0; (read = std::fread(buffer.data(), 1, buffer.size(), file_.get())) > 0;) {
    out.write(buffer.data(), static_cast<std::streamsize>(read));
  }
  // Later rows go after these.
  std::fseek(file_.get(), 0, SEEK_END);
}

void write_candidates_csv(const std::vector<PlanStudy>& studies, std::ostream& out) {
  out << "devices,split," << degree_columns()
      << ",microbatches,zero,recomputation,schedule,virtual_stages,placement,memory_bytes,estimate_s,estimate_per_s,"
         "same_estimate_as,simulated,discarded,detail\n";
  for (const PlanStudy& study : studies) {
    for (const PlanRow& row : study.rows) out << candidate_line(row);
    if (study.spilled) study.spilled->copy_to(out);
  }
}

std::string candidates_csv(const std::vector<PlanStudy>& studies) {
  std::ostringstream out;
  write_candidates_csv(studies, out);
  return out.str();
}

std::string plan_table(const std::vector<PlanStudy>& studies) {
  std::string out;
  for (const PlanStudy& study : studies) {
    std::int64_t fitting = study.fitting;
    if (!study.spilled) {
      fitting = 0;
      for (const PlanRow& row : study.rows) fitting += row.discarded.empty() ? 1 : 0;
    }
    out += fmt::format("{} devices: {} candidates, {} fit, {} discarded\n", study.devices, study.candidates, fitting,
                       study.candidates - fitting);
    for (const PlanDiscard& d : study.discards) out += fmt::format("  {:>8}  {}\n", d.count, d.reason);
  }
  const std::string unit = studies.empty() ? "tokens" : studies.front().tokens_unit;
  out += fmt::format("\n  {:>4} {:>7}  {:<44} {:>11} {:>11} {:>12} {:>6} {:>8}\n", "rank", "devices", "split", "estimate_s",
                     "iteration_s", unit + "/s", "MFU", "GiB");
  int rank = 0;
  for (const PlanRow* row : ranked_plans(studies, studies.empty() ? "" : studies.front().objective)) {
    const PlanMeasurement& m = *row->simulated;
    out += fmt::format("  {:>4} {:>7}  {:<44} {:>11.4g} {:>11.4g} {:>12.5g} {:>6} {:>8.1f}\n", ++rank, row->devices, row->split,
                       row->estimate_s, m.iteration_s, m.tokens_per_s,
                       m.model_flops_utilization ? fmt::format("{:.1f}%", 100.0 * *m.model_flops_utilization) : "-",
                       m.peak_memory_bytes / kGiB);
  }
  return out;
}

std::string plan_report_html(const std::string& name, const std::vector<PlanStudy>& studies) {
  std::vector<Chart> charts{throughput_against_memory(studies), discards_chart(studies)};
  const std::string objective = studies.empty() ? "tokens_per_s" : studies.front().objective;
  const std::string intro = fmt::format("<p>Candidates screened by the memory model and the scenario's checks, ranked by "
                                        "a closed-form estimate; the best simulated and ordered by {}.</p>\n",
                                        html_escaped(objective));
  return page_html("dtsim plan: " + name, intro, charts, html_plans(studies));
}

}  // namespace dtsim::analysis
