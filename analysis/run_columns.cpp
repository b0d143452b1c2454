#include "analysis/run_columns.hpp"

#include "sim/core/csv.hpp"
#include "sim/core/diagnostic.hpp"
#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim::analysis {
namespace {

std::string number(const std::optional<double>& value, const char* format = "{:.6g}") {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string();
}

double iteration_s(const RunSummary& run) {
  return run.iterations > 0 ? run.simulated_s / static_cast<double>(run.iterations) : 0.0;
}

std::optional<double> by_kind(const RunSummary& run, const char* kind) {
  const auto found = run.communication_by_kind_s.find(kind);
  return found != run.communication_by_kind_s.end() ? std::optional<double>(found->second) : std::nullopt;
}

std::optional<double> percent(const std::optional<double>& fraction) {
  return fraction ? std::optional<double>(100.0 * *fraction) : std::nullopt;
}

using Value = std::function<std::optional<double>(const RunSummary&)>;

/// A column of a number, formatted for the table and for CSV.
RunColumn number_column(std::string_view name, std::string_view description, Value value, const char* table_format,
                        const char* csv_format) {
  return {name, description, true, [value, table_format](const RunSummary& run) { return number(value(run), table_format); },
          [value, csv_format](const RunSummary& run) { return number(value(run), csv_format); }};
}

RunColumn text_column(std::string_view name, std::string_view description, std::function<std::string(const RunSummary&)> value) {
  return {name, description, false, value, [value](const RunSummary& run) { return core::csv_field(value(run)); }};
}

/// Worker 0's communication of `kind` per iteration.
RunColumn kind_column(std::string_view name, const char* kind, std::string_view description) {
  return number_column(name, description, [kind](const RunSummary& run) { return by_kind(run, kind); }, "{:.6f}", "{:.9g}");
}

std::optional<double> some(double value) { return value; }

}  // namespace

const std::vector<RunColumn>& run_columns() {
  static const std::vector<RunColumn> columns{
      text_column("run", "the scenario's name, and its sweep point in brackets", [](const RunSummary& r) { return r.run; }),
      text_column("strategy", "training.sync.strategy", [](const RunSummary& r) { return r.strategy; }),
      text_column("architecture", "parameter server, the allreduce's algorithm, or peer to peer",
                  [](const RunSummary& r) { return r.architecture; }),
      text_column("stragglers", "the slowdown rules", [](const RunSummary& r) { return r.stragglers; }),
      text_column("layout", "the split (t8 p4 d32); data for data parallelism alone",
                  [](const RunSummary& r) { return r.layout.empty() ? std::string("data") : r.layout; }),
      number_column("iterations", "iterations simulated", [](const RunSummary& r) { return some(static_cast<double>(r.iterations)); },
                    "{:.0f}", "{:.0f}"),
      number_column("simulated_s", "simulated seconds", [](const RunSummary& r) { return some(r.simulated_s); }, "{:.6f}", "{:.9g}"),
      number_column("iteration_s", "simulated seconds per iteration", [](const RunSummary& r) { return some(iteration_s(r)); },
                    "{:.6f}", "{:.9g}"),
      number_column("samples_per_s", "timing-only runs: samples per second", [](const RunSummary& r) { return r.samples_per_s; },
                    "{:.6g}", "{:.9g}"),
      number_column("tokens_per_s", "timing-only runs: tokens per second", [](const RunSummary& r) { return r.tokens_per_s; },
                    "{:.6g}", "{:.9g}"),
      number_column("mfu", "model FLOPs utilization, % of the workers' peak",
                    [](const RunSummary& r) { return percent(r.model_flops_utilization); }, "{:.1f}", "{:.4f}"),
      RunColumn{"peak_memory", "the largest memory a device holds", true,
                [](const RunSummary& r) {
                  return r.peak_memory_bytes ? core::format_size(core::Bytes(*r.peak_memory_bytes)) : std::string();
                },
                [](const RunSummary& r) { return number(r.peak_memory_bytes, "{:.0f}"); }},
      number_column("bubble", "a pipeline's idle time, % of its busiest stage's compute",
                    [](const RunSummary& r) { return percent(r.idle_fraction); }, "{:.1f}", "{:.4f}"),
      RunColumn{"sent", "bytes sent", true, [](const RunSummary& r) { return core::format_size(core::Bytes(r.bytes_sent)); },
                [](const RunSummary& r) { return fmt::format("{:.0f}", r.bytes_sent); }},
      number_column("waiting", "the workers' waiting, % of their time",
                    [](const RunSummary& r) { return some(100.0 * r.waiting_fraction); }, "{:.1f}", "{:.4f}"),
      kind_column("tensor_s", "tensor", "worker 0's tensor-parallel sums per iteration, seconds"),
      kind_column("pipeline_s", "pipeline", "worker 0's pipeline messages per iteration, seconds"),
      kind_column("data_s", "data", "worker 0's gradient reduction per iteration, seconds"),
      kind_column("zero_s", "zero", "worker 0's ZeRO parameter gathers per iteration, seconds"),
      kind_column("expert_s", "expert", "worker 0's expert all-to-alls per iteration, seconds"),
      kind_column("context_s", "context", "worker 0's context exchanges per iteration, seconds"),
      number_column("energy_j", "joules, with an energy section", [](const RunSummary& r) { return r.energy_j; }, "{:.6g}", "{:.9g}"),
      number_column("cost", "the run's cost in its currency, with energy prices", [](const RunSummary& r) { return r.cost; },
                    "{:.6g}", "{:.9g}"),
      number_column("final_loss", "the last validation loss", [](const RunSummary& r) { return r.final_val_loss; }, "{:.4f}", "{:.9g}"),
      number_column("final_accuracy", "the last validation accuracy", [](const RunSummary& r) { return r.final_val_accuracy; },
                    "{:.4f}", "{:.9g}"),
      number_column("time_to_target_s", "simulated seconds to outputs.target_loss",
                    [](const RunSummary& r) { return r.time_to_target_s; }, "{:.6f}", "{:.9g}"),
      number_column("staleness", "mean staleness of the applied gradients", [](const RunSummary& r) { return r.mean_staleness; },
                    "{:.2f}", "{:.9g}"),
  };
  return columns;
}

std::vector<const RunColumn*> columns_named(std::span<const std::string> names) {
  const std::vector<RunColumn>& all = run_columns();
  std::vector<const RunColumn*> out{&all.front()};
  for (const std::string& name : names) {
    const auto found = std::find_if(all.begin(), all.end(), [&](const RunColumn& c) { return c.name == name; });
    if (found == all.end()) {
      std::string known;
      for (const RunColumn& c : all) known += (known.empty() ? "" : ", ") + std::string(c.name);
      throw core::InputError(core::Diagnostic{core::SourcePosition("dtsim compare"), "--columns",
                                              fmt::format("no column '{}'", core::printable(name)), "the columns: " + known});
    }
    if (std::find(out.begin(), out.end(), &*found) == out.end()) out.push_back(&*found);
  }
  return out;
}

std::string columns_table(std::span<const RunSummary> runs, std::span<const RunColumn* const> columns) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> widths;
  for (const RunColumn* column : columns) widths.push_back(column->name.size());
  for (const RunSummary& run : runs) {
    std::vector<std::string> row;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::string cell = columns[c]->table_cell(run);
      if (cell.empty()) cell = "-";
      widths[c] = std::max(widths[c], cell.size());
      row.push_back(std::move(cell));
    }
    cells.push_back(std::move(row));
  }
  const auto line = [&](const auto& texts) {
    std::string out;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out += c == 0 ? "" : "  ";
      out += columns[c]->numeric ? fmt::format("{:>{}}", texts[c], widths[c]) : fmt::format("{:<{}}", texts[c], widths[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> header;
  for (const RunColumn* column : columns) header.emplace_back(column->name);
  std::string out = line(header);
  for (const auto& row : cells) out += line(row);
  return out;
}

std::string columns_csv(std::span<const RunSummary> runs, std::span<const RunColumn* const> columns) {
  std::string out;
  for (const RunColumn* column : columns) out += (out.empty() ? "" : ",") + std::string(column->name);
  out += "\n";
  for (const RunSummary& run : runs) {
    std::string row;
    for (std::size_t c = 0; c < columns.size(); ++c) row += (c == 0 ? "" : ",") + columns[c]->csv_cell(run);
    out += row + "\n";
  }
  return out;
}

std::string columns_help() {
  std::string out;
  for (const RunColumn& column : run_columns()) out += fmt::format("  {:<17} {}\n", column.name, column.description);
  return out;
}

}  // namespace dtsim::analysis
