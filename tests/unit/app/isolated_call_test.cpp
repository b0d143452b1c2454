// call_isolated: every way a child can end reaches the caller as an outcome, and a caller's `should_stop`
// ends a child that would otherwise run on; call_isolated_reporting passes on the lines a child sends.

#include "sim/app/isolated_call.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dtsim::app {
namespace {

using Status = IsolatedOutcome::Status;
using namespace std::chrono_literals;

// Generous: these children end at once, or are ended by what the test asserts.
constexpr std::chrono::milliseconds kNoLimit = std::chrono::hours(1);

TEST(IsolatedCall, ReturnsWhatTheFunctionReturned) {
  const IsolatedOutcome outcome = call_isolated([] { return std::string("folder/of/results"); }, kNoLimit);
  EXPECT_EQ(outcome.status, Status::finished);
  EXPECT_EQ(outcome.text, "folder/of/results");
}

TEST(IsolatedCall, ReportsAnExceptionWithItsMessage) {
  const IsolatedOutcome outcome =
      call_isolated([]() -> std::string { throw std::runtime_error("no such device"); }, kNoLimit);
  EXPECT_EQ(outcome.status, Status::threw);
  EXPECT_EQ(outcome.text, "no such device");
}

TEST(IsolatedCall, ReportsADeathBySignal) {
  const IsolatedOutcome outcome = call_isolated([]() -> std::string {
    ::kill(::getpid(), SIGKILL);
    return "";
  }, kNoLimit);
  EXPECT_EQ(outcome.status, Status::crashed);
  EXPECT_NE(outcome.text.find("signal 9"), std::string::npos) << outcome.text;
}

TEST(IsolatedCall, StopsAChildPastItsLimit) {
  const IsolatedOutcome outcome = call_isolated([]() -> std::string {
    std::this_thread::sleep_for(1h);
    return "";
  }, 200ms);
  EXPECT_EQ(outcome.status, Status::timed_out);
}

TEST(IsolatedCall, StopsAChildWhenTheCallerSaysSo) {
  int asked = 0;
  const auto started = std::chrono::steady_clock::now();
  const IsolatedOutcome outcome = call_isolated(
      []() -> std::string {
        std::this_thread::sleep_for(1h);
        return "";
      },
      kNoLimit, [&] { return ++asked == 3; });
  EXPECT_EQ(outcome.status, Status::stopped);
  EXPECT_EQ(asked, 3);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10min);  // not the child's hour
}

TEST(IsolatedCall, AskingToStopDoesNotChangeAFinishedResult) {
  int asked = 0;
  const IsolatedOutcome outcome = call_isolated([] { return std::string("done"); }, kNoLimit, [&] {
    ++asked;
    return false;
  });
  EXPECT_EQ(outcome.status, Status::finished);
  EXPECT_EQ(outcome.text, "done");
  EXPECT_GE(asked, 1);
}

TEST(IsolatedCallReporting, PassesOnEveryLineInOrderThenTheResult) {
  std::vector<std::string> lines;
  const IsolatedOutcome outcome = call_isolated_reporting(
      [](const LineSink& send) {
        send("iteration 1/2");
        send("two\nparts");
        send("");
        return std::string("done");
      },
      kNoLimit, {}, [&](const std::string& line) { lines.push_back(line); });
  EXPECT_EQ(outcome.status, Status::finished);
  EXPECT_EQ(outcome.text, "done");
  EXPECT_EQ(lines, (std::vector<std::string>{"iteration 1/2", "two parts", ""}));
}

TEST(IsolatedCallReporting, AChildThatSendsMoreThanAPipeHoldsIsNotBlocked) {
  constexpr int kLines = 100000;  // about 1.7 MB, many times a pipe's buffer
  int received = 0;
  std::string last;
  const IsolatedOutcome outcome = call_isolated_reporting(
      [](const LineSink& send) {
        for (int i = 1; i <= kLines; ++i) send("line " + std::to_string(i));
        return std::string("sent");
      },
      kNoLimit, {}, [&](const std::string& line) {
        ++received;
        last = line;
      });
  EXPECT_EQ(outcome.status, Status::finished);
  EXPECT_EQ(received, kLines);
  EXPECT_EQ(last, "line " + std::to_string(kLines));
}

TEST(IsolatedCallReporting, LinesBeforeACrashArriveAndTheCrashIsReported) {
  std::vector<std::string> lines;
  const IsolatedOutcome outcome = call_isolated_reporting(
      [](const LineSink& send) -> std::string {
        send("about to crash");
        ::kill(::getpid(), SIGKILL);
        return "";
      },
      kNoLimit, {}, [&](const std::string& line) { lines.push_back(line); });
  EXPECT_EQ(outcome.status, Status::crashed);
  EXPECT_EQ(lines, std::vector<std::string>{"about to crash"});
}

}  // namespace
}  // namespace dtsim::app
