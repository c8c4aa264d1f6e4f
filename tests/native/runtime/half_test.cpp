// Half and BFloat16: round trips, round-to-nearest-even, overflow, subnormals and NaN.
#include "runtime/core/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace {

TEST(HalfTest, EveryNonNanValueRoundTripsThroughFloat) {
  int mismatches = 0;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const kiln::Half h = kiln::Half::from_bits(static_cast<uint16_t>(bits));
    const float f = h;
    if (std::isnan(f)) continue;
    if (kiln::Half(f).x != h.x) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(HalfTest, RoundsTiesToEven) {
  EXPECT_EQ(kiln::Half(1.0f + 1.0f / 2048).x, kiln::Half(1.0f).x);  // tie rounds to even
  EXPECT_EQ(kiln::Half(1.0f + 3.0f / 2048).x, 0x3c02);              // tie rounds up to even
}

TEST(HalfTest, OverflowsToInfinityPastTheLargestFiniteValue) {
  EXPECT_EQ(kiln::Half(65520.0f).x, 0x7c00);
  EXPECT_EQ(kiln::Half(65519.0f).x, 0x7bff);
}

TEST(HalfTest, RoundsIntoAndBelowTheSubnormals) {
  EXPECT_EQ(kiln::Half(5.9604644775390625e-8f).x, 0x0001);  // smallest subnormal
  EXPECT_EQ(kiln::Half(2.98e-8f).x, 0x0000);                // below half of it: zero
}

TEST(HalfTest, KeepsNan) { EXPECT_TRUE(std::isnan(static_cast<float>(kiln::Half(NAN)))); }

TEST(BFloat16Test, RoundsTiesToEven) {
  EXPECT_EQ(kiln::BFloat16(1.00390625f).x, 0x3f80);  // tie to even (1 + 2^-8)
  EXPECT_EQ(kiln::BFloat16(1.01171875f).x, 0x3f82);  // tie to even upwards
}

TEST(BFloat16Test, KeepsNanAndExactValues) {
  EXPECT_TRUE(std::isnan(static_cast<float>(kiln::BFloat16(NAN))));
  EXPECT_EQ(static_cast<float>(kiln::BFloat16(-2.5f)), -2.5f);
}

}  // namespace
