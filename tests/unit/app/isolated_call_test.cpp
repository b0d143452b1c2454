// call_isolated: every way a child can end reaches the caller as an outcome, and a caller's `should_stop`
// ends a child that would otherwise run on.

#include "sim/app/isolated_call.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

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

}  // namespace
}  // namespace dtsim::app
