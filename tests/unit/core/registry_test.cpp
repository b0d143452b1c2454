#include "sim/core/name_match.hpp"
#include "sim/core/registry.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace dtsim::core {
namespace {

TEST(NameMatch, EditDistance) {
  EXPECT_EQ(edit_distance("ring", "ring"), 0U);
  EXPECT_EQ(edit_distance("rnig", "ring"), 1U);  // a transposition is one edit
  EXPECT_EQ(edit_distance("torus", "tree"), 3U);
  EXPECT_EQ(edit_distance("", "abc"), 3U);
}

TEST(NameMatch, ClosestOnlyWhenPlausible) {
  const std::vector<std::string> names{"parameter_server", "ring"};
  EXPECT_EQ(closest_name("parameter_sever", names), "parameter_server");
  EXPECT_EQ(closest_name("rign", names), "ring");
  EXPECT_EQ(closest_name("rin", names), "ring");
  EXPECT_EQ(closest_name("hypercube", names), std::nullopt);
}

TEST(Registry, FindsRegisteredNames) {
  Registry<std::function<int()>> registry("widget");
  registry.add("one", "the first", [] { return 1; });
  registry.add("two", "the second", [] { return 2; });
  EXPECT_EQ(registry.find("two").factory(), 2);
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"one", "two"}));
  EXPECT_THROW(registry.add("one", "again", [] { return 3; }), std::logic_error);
}

TEST(Registry, FailedLookupNamesTheClosestAndAllValid) {
  Registry<std::function<int()>> registry("widget");
  registry.add("gossip", "", [] { return 1; });
  registry.add("bsp", "", [] { return 2; });
  try {
    static_cast<void>(registry.find("gosip"));
    FAIL();
  } catch (const UnknownNameError& error) {
    EXPECT_STREQ(error.what(), "unknown widget 'gosip'");
    EXPECT_EQ(error.hint(), "did you mean 'gossip'? valid widget names: bsp, gossip");
  }
}

}  // namespace
}  // namespace dtsim::core
