#include "sim/comm/payload.hpp"

#include <gtest/gtest.h>

namespace dtsim::comm {
namespace {

TEST(Payload, RealBlocksCopyAddAndAssignTheirValues) {
  std::vector<float> values{1.0F, 2.0F, 3.0F, 4.0F};
  const Block block(values);
  const Block tail = block.part(2, 4);
  EXPECT_EQ(tail.copy(), Buffer({3.0F, 4.0F}));
  tail.add(Buffer({10.0F, 20.0F}));
  block.part(0, 1).assign(Buffer({-1.0F}));
  EXPECT_EQ(values, (std::vector<float>{-1.0F, 2.0F, 13.0F, 24.0F}));
  EXPECT_EQ(wire_bytes(block.copy()), 16.0);
}

TEST(Payload, TimingOnlyBlocksCarrySizesAndNoValues) {
  const Block block = Block::sized(1U << 30U);
  const Block part = block.part(100, 300);
  EXPECT_FALSE(part.has_values());
  EXPECT_EQ(part.size(), 200U);
  const Buffer message = part.copy();
  EXPECT_EQ(message.size(), 200U);
  EXPECT_TRUE(message.values().empty());
  EXPECT_EQ(wire_bytes(message), 800.0);
  EXPECT_NO_THROW(part.add(message));
}

TEST(Payload, MismatchedMessagesAreErrorsNotSilentDrops) {
  std::vector<float> values(4, 0.0F);
  const Block block(values);
  EXPECT_THROW(block.add(Buffer({1.0F})), std::invalid_argument);
  EXPECT_THROW(block.add(Buffer::sized(4)), std::logic_error);
  EXPECT_THROW(static_cast<void>(block.part(3, 5)), std::out_of_range);
}

}  // namespace
}  // namespace dtsim::comm
