// The per-host chart of a run with many hosts and a split model: a bar per pipeline stage and tensor rank, the
// mean of the hosts holding them, each host's stage and rank taken from the placement.

#include "analysis/report_charts.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <utility>

namespace dtsim::analysis {
namespace {

using nlohmann::json;

/// 48 workers split t2 x p4 x d6 in `placement`; worker r computes r seconds, communicates 1 and waits 2.
ReportRun split_run(const json& placement) {
  ReportRun run;
  run.label = "split";
  json hosts = json::array();
  for (int r = 0; r < 48; ++r) {
    hosts.push_back({{"name", "node-" + std::to_string(r)}, {"role", "worker"}, {"compute_s", r}, {"communication_s", 1.0},
                     {"wait_s", 2.0}});
  }
  hosts.push_back({{"name", "server-0"}, {"role", "server"}, {"compute_s", 1000.0}, {"communication_s", 0.0}, {"wait_s", 0.0}});
  run.summary = {{"hosts", hosts},
                 {"result", {{"parallelism", {{"tensor", 2}, {"pipeline", 4}, {"data", 6}, {"placement", placement}}}}}};
  run.metrics = json::array();
  run.links = json::array();
  return run;
}

/// The chart's compute seconds by (stage, tensor rank).
std::map<std::pair<int, int>, double> compute_by_group(const Chart& chart) {
  std::map<std::pair<int, int>, double> out;
  for (const json& value : chart.spec.at("data").at("values")) {
    if (value.at("part") != "compute") continue;
    out[{value.at("order").get<int>(), value.at("rank").get<int>()}] = value.at("seconds").get<double>();
  }
  return out;
}

const Chart& chart_titled(const std::vector<Chart>& charts, const std::string& title) {
  for (const Chart& chart : charts) {
    if (chart.title == title) return chart;
  }
  throw std::runtime_error("no chart " + title);
}

TEST(ReportCharts, ManyHostsOfASplitModelAreDrawnPerStageAndTensorRank) {
  // Tensor innermost, then pipeline: rank r is tensor rank r % 2 of stage (r / 2) % 4, replica r / 8, so the hosts
  // of stage s and tensor rank k are k + 2s + 8j for j = 0..5: their mean compute is k + 2s + 20.
  const std::vector<Chart> charts = run_charts({split_run({"tensor", "pipeline", "data"})});
  const Chart& chart = chart_titled(charts, "Time per stage and tensor rank");
  const auto compute = compute_by_group(chart);
  ASSERT_EQ(compute.size(), 8U);
  for (int s = 0; s < 4; ++s) {
    for (int k = 0; k < 2; ++k) EXPECT_DOUBLE_EQ(compute.at({s, k}), k + 2 * s + 20) << s << "," << k;
  }
  EXPECT_NE(chart.caption.find("The 49 hosts grouped by pipeline stage"), std::string::npos) << chart.caption;
  EXPECT_NE(chart.caption.find("the mean of the 6 hosts"), std::string::npos) << chart.caption;
}

TEST(ReportCharts, EachHostsStageAndRankFollowThePlacement) {
  // Pipeline outermost: rank r is tensor rank r % 2, replica (r / 2) % 6, stage r / 12: the hosts of stage s and
  // tensor rank k are 12s + k + 2j for j = 0..5, whose mean is 12s + k + 5.
  const auto compute = compute_by_group(chart_titled(run_charts({split_run({"tensor", "data", "pipeline"})}),
                                                     "Time per stage and tensor rank"));
  for (int s = 0; s < 4; ++s) {
    for (int k = 0; k < 2; ++k) EXPECT_DOUBLE_EQ(compute.at({s, k}), 12 * s + k + 5) << s << "," << k;
  }
}

TEST(ReportCharts, ManyHostsOfDataParallelismAloneAreAnEvenSample) {
  ReportRun run = split_run({"tensor", "pipeline", "data"});
  run.summary["result"].erase("parallelism");
  const std::vector<Chart> charts = run_charts({run});
  EXPECT_EQ(chart_titled(charts, "Time per host").spec.at("data").at("values").size(), 49U * 3U);
}

TEST(ReportCharts, AProjectedRunsInterruptionsAreDrawnFromWhenNoticedToWhenBackAndDamagedOnesLeftOut) {
  ReportRun run = split_run({"tensor", "pipeline", "data"});
  json timeline = json::array();
  timeline.push_back({{"at_s", 86'000.0}, {"noticed_s", 86'400.0}, {"resumed_s", 90'000.0}, {"cause", "gpu"},
                      {"lost_iterations", 12}});
  timeline.push_back({{"at_s", "soon"}, {"noticed_s", 1.0}, {"resumed_s", 2.0}});  // not a number: left out
  timeline.push_back(json::array({1, 2}));                                           // not an entry: left out
  run.summary["result"]["projection"] = {{"failures", {{"timeline", timeline}}}};
  const std::vector<Chart> charts = run_charts({run});
  const json& values = chart_titled(charts, "Interruptions over the whole run").spec.at("data").at("values");
  ASSERT_EQ(values.size(), 1U);
  EXPECT_DOUBLE_EQ(values[0].at("noticed_day").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(values[0].at("down_h").get<double>(), 1.0);
  EXPECT_EQ(values[0].at("cause"), "gpu");
  run.summary["result"]["projection"]["failures"]["timeline"] = "not a list";
  for (const Chart& chart : run_charts({run})) EXPECT_NE(chart.title, "Interruptions over the whole run");
}

/// The files of a run whose one host computes `spans` spans of 1 ms back to back, in three iterations of a third of
/// them each.
std::map<std::string, std::string> busy_run_files(int spans) {
  const json summary = {{"dtsim_version", "0.1.0"},
                        {"scenario", {{"name", "busy"}}},
                        {"origin", json::object()},
                        {"result", json::object()},
                        {"hosts", json::array({{{"name", "node-0"}, {"role", "worker"}, {"compute_s", spans / 1e3},
                                                {"communication_s", 0.0}, {"wait_s", 0.0}}})}};
  json events = json::array();
  for (int i = 0; i < 3; ++i) {
    events.push_back({{"ph", "X"}, {"name", "iteration"}, {"pid", 1}, {"tid", 0}, {"ts", i * spans / 3 * 1e3},
                      {"dur", spans / 3 * 1e3}});
  }
  for (int i = 0; i < spans; ++i) {
    events.push_back({{"ph", "X"}, {"name", "compute"}, {"pid", 0}, {"tid", 0}, {"ts", i * 1e3}, {"dur", 1e3}});
  }
  return {{"summary.json", summary.dump()},
          {"metrics.csv", ""},
          {"links.csv", ""},
          {"trace.json", json{{"traceEvents", events}}.dump()}};
}

// 9,000 spans of 1 ms in three iterations: the view keeps the first 6,000, which end at 6,000 ms of the 9,000 its
// iterations cover, and says so; a run of 3,000 spans is drawn whole and says nothing of a cut.
TEST(ReportCharts, AGanttViewCutShortOfItsIterationsSaysWhere) {
  const ReportRun cut = report_run(busy_run_files(9000), "busy/summary.json");
  ASSERT_EQ(cut.gantt.size(), kGanttSpans);
  ASSERT_TRUE(cut.gantt_cut_ms.has_value());
  EXPECT_DOUBLE_EQ(*cut.gantt_cut_ms, 6000.0);
  for (const json& span : cut.gantt) EXPECT_LE(span.at("end_ms").get<double>(), 6000.0);
  const std::vector<Chart> cut_charts = run_charts({cut});
  const Chart& drawn = chart_titled(cut_charts, "Timeline of the first iterations");
  EXPECT_NE(drawn.caption.find("The first 3 iterations of the run's timeline, cut at 6000 ms: the view draws 6000 "
                               "spans at most"),
            std::string::npos)
      << drawn.caption;

  const ReportRun whole = report_run(busy_run_files(3000), "busy/summary.json");
  EXPECT_EQ(whole.gantt.size(), 3000U);
  EXPECT_FALSE(whole.gantt_cut_ms.has_value());
  const std::vector<Chart> whole_charts = run_charts({whole});
  const Chart& all = chart_titled(whole_charts, "Timeline of the first iterations");
  EXPECT_EQ(all.caption.find("cut at"), std::string::npos) << all.caption;
}

}  // namespace
}  // namespace dtsim::analysis
