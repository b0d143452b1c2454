// Links' utilization over time on hand-built samples: bytes spread evenly over the time a job was on its devices
// between two samples, summed over the jobs, over what each direction carries in a bin; the busiest first.

#include "sim/metrics/link_timeline.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace dtsim::metrics {
namespace {

RunRecord two_directions(double first_bytes, double second_bytes) {
  RunRecord record;
  record.links.push_back({"a--b", "link", "a", "b", 100.0, first_bytes});
  record.links.push_back({"a--b", "link", "b", "a", 100.0, second_bytes});
  return record;
}

TEST(LinkTimeline, BytesSpreadOverTheTimeOnTheDevicesAndNotOverAStop) {
  const RunRecord record = two_directions(100.0, 0.0);
  // 100 bytes between 0 and 1 s, the job off its devices from 0.25 to 0.75 s: half in the first quarter, half in
  // the last.
  const std::vector<JobLinkSamples> jobs{{&record, 0.0, {{0.25, 0.75}}, {{1.0, {{0, 100.0}}}}}};
  const LinkTimeline timeline = link_timeline(jobs, 1.0, 4, 8);
  ASSERT_EQ(timeline.links.size(), 1U);  // the direction that carried nothing is left out
  EXPECT_DOUBLE_EQ(timeline.bin_s, 0.25);
  EXPECT_EQ(timeline.links[0].from, "a");
  // 50 bytes in 0.25 s of a direction carrying 100 bytes a second: 2.
  EXPECT_EQ(timeline.utilization[0], (std::vector<double>{2.0, 0.0, 0.0, 2.0}));
  // Nine significant digits, as metrics.csv writes its times.
  EXPECT_EQ(link_timeline_csv(timeline), "t_s,link,from,to,utilization\n0,a--b,a,b,2\n0.25,a--b,a,b,0\n0.5,a--b,a,b,0\n"
                                         "0.75,a--b,a,b,2\n");
}

TEST(LinkTimeline, JobsAddUpAndEachSampleCoversTheTimeSinceTheLast) {
  const RunRecord first = two_directions(30.0, 10.0);
  const RunRecord second = two_directions(0.0, 40.0);
  // The first job from 0: 20 bytes by 0.5 s, 10 more by 1 s each way; the second from 0.5 s: 40 bytes b->a by 1 s.
  const std::vector<JobLinkSamples> jobs{{&first, 0.0, {}, {{0.5, {{0, 20.0}}}, {1.0, {{0, 10.0}, {1, 10.0}}}}},
                                         {&second, 0.5, {}, {{1.0, {{1, 40.0}}}}}};
  const LinkTimeline timeline = link_timeline(jobs, 1.0, 2, 8);
  ASSERT_EQ(timeline.links.size(), 2U);
  EXPECT_EQ(timeline.links[0].from, "b");  // 50 bytes against 30: the busiest first
  EXPECT_EQ(timeline.links[0].bytes, 50.0);
  EXPECT_EQ(timeline.utilization[0], (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(timeline.utilization[1], (std::vector<double>{0.4, 0.2}));
  // Each direction's mean over the bins is its utilization over the makespan.
  EXPECT_DOUBLE_EQ((timeline.utilization[1][0] + timeline.utilization[1][1]) / 2, 30.0 / 100.0);
}

TEST(LinkTimeline, KeepsTheBusiestDirectionsOnly) {
  const RunRecord record = two_directions(10.0, 20.0);
  const std::vector<JobLinkSamples> jobs{{&record, 0.0, {}, {{2.0, {{0, 10.0}, {1, 20.0}}}}}};
  const LinkTimeline timeline = link_timeline(jobs, 2.0, 1, 1);
  ASSERT_EQ(timeline.links.size(), 1U);
  EXPECT_EQ(timeline.links[0].to, "a");
  EXPECT_DOUBLE_EQ(timeline.utilization[0][0], 0.1);
}

}  // namespace
}  // namespace dtsim::metrics
