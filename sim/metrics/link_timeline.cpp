#include "sim/metrics/link_timeline.hpp"

#include "sim/core/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace dtsim::metrics {
namespace {

/// The parts of [from, to] outside every `off` interval.
std::vector<std::pair<double, double>> on_parts(double from, double to, const std::vector<std::pair<double, double>>& off) {
  std::vector<std::pair<double, double>> out;
  for (const auto& [off_from, off_to] : off) {
    if (off_to <= from || off_from >= to) continue;
    if (off_from > from) out.emplace_back(from, off_from);
    from = std::max(from, off_to);
  }
  if (to > from) out.emplace_back(from, to);
  return out;
}

/// Adds `bytes` spread evenly over `parts` to `row`'s bins of width `bin_s`.
void spread(std::vector<double>& row, double bin_s, const std::vector<std::pair<double, double>>& parts, double bytes) {
  double length = 0.0;
  for (const auto& [from, to] : parts) length += to - from;
  if (length <= 0.0) return;
  const std::size_t last = row.size() - 1;
  for (const auto& [from, to] : parts) {
    for (auto bin = std::min(static_cast<std::size_t>(from / bin_s), last); bin <= last; ++bin) {
      const double lo = std::max(from, static_cast<double>(bin) * bin_s);
      const double hi = bin == last ? to : std::min(to, static_cast<double>(bin + 1) * bin_s);
      if (hi > lo) row[bin] += bytes * (hi - lo) / length;
      if (static_cast<double>(bin + 1) * bin_s >= to) break;
    }
  }
}

}  // namespace

LinkTimeline link_timeline(std::span<const JobLinkSamples> jobs, double makespan_s, std::size_t bins, std::size_t links) {
  LinkTimeline out;
  if (jobs.empty() || makespan_s <= 0.0 || bins == 0) return out;
  out.bin_s = makespan_s / static_cast<double>(bins);
  const std::vector<LinkLoad>& all = jobs.front().record->links;
  std::vector<double> bytes(all.size(), 0.0);
  for (const JobLinkSamples& job : jobs) {
    for (std::size_t i = 0; i < all.size(); ++i) bytes[i] += job.record->links[i].bytes;
  }
  const auto load = [&](std::size_t i) { return all[i].bandwidth_bytes_per_s > 0.0 ? bytes[i] / all[i].bandwidth_bytes_per_s : 0.0; };
  std::vector<std::size_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return load(a) > load(b); });
  while (!order.empty() && bytes[order.back()] <= 0.0) order.pop_back();
  order.resize(std::min(order.size(), links));
  std::vector<std::size_t> row_of(all.size(), order.size());
  for (std::size_t r = 0; r < order.size(); ++r) {
    row_of[order[r]] = r;
    out.links.push_back(all[order[r]]);
    out.links.back().bytes = bytes[order[r]];
  }
  out.utilization.assign(order.size(), std::vector<double>(bins, 0.0));
  for (const JobLinkSamples& job : jobs) {
    double from = job.start_s;
    for (const LinkSample& sample : job.samples) {
      const std::vector<std::pair<double, double>> parts = on_parts(from, sample.at_s, job.off);
      for (const auto& [link, moved] : sample.bytes) {
        if (row_of[link] < order.size()) spread(out.utilization[row_of[link]], out.bin_s, parts, moved);
      }
      from = sample.at_s;
    }
  }
  for (std::size_t r = 0; r < order.size(); ++r) {
    const double capacity = out.links[r].bandwidth_bytes_per_s * out.bin_s;
    for (double& u : out.utilization[r]) u = capacity > 0.0 ? u / capacity : 0.0;
  }
  return out;
}

std::string link_timeline_csv(const LinkTimeline& timeline) {
  std::string out = "t_s,link,from,to,utilization\n";
  const std::size_t bins = timeline.utilization.empty() ? 0 : timeline.utilization.front().size();
  for (std::size_t bin = 0; bin < bins; ++bin) {
    for (std::size_t r = 0; r < timeline.links.size(); ++r) {
      const LinkLoad& link = timeline.links[r];
      out += fmt::format("{:.9g},{},{},{},{:.9g}\n", static_cast<double>(bin) * timeline.bin_s, core::csv_field(link.name),
                         core::csv_field(link.from), core::csv_field(link.to), timeline.utilization[r][bin]);
    }
  }
  return out;
}

}  // namespace dtsim::metrics
