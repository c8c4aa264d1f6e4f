// RandomGenerator: Philox4x32-10's published answers, reservations, seeding, contexts' choice.
#include "runtime/kernel/random_generator.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/kernel/kernel_runtime_context.h"

namespace {

void expect_block(const kiln::RandomBlock& block, uint32_t w0, uint32_t w1, uint32_t w2,
                  uint32_t w3) {
  EXPECT_EQ(block.word[0], w0);
  EXPECT_EQ(block.word[1], w1);
  EXPECT_EQ(block.word[2], w2);
  EXPECT_EQ(block.word[3], w3);
}

// The known-answer vectors Random123 publishes for philox4x32 with 10 rounds.
TEST(RandomGeneratorTest, MatchesPhiloxKnownAnswers) {
  expect_block(kiln::philox4x32_10({{0, 0, 0, 0}}, 0, 0), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
               0x9b00dbd8u);
  expect_block(kiln::philox4x32_10({{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u), 0x408f276du, 0x41c83b0eu,
               0xa20bc7c6u, 0x6d5451fdu);
  expect_block(kiln::philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
                                   0xa4093822u, 0x299f31d0u),
               0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

TEST(RandomGeneratorTest, ReservesConsecutiveRangesAndRestartsOnSeeding) {
  kiln::RandomGenerator generator(7);
  const kiln::RandomStream first = generator.reserve(3);
  const kiln::RandomStream second = generator.reserve(2);
  EXPECT_EQ(first.first, 0u);
  EXPECT_EQ(second.first, 3u);
  EXPECT_EQ(generator.offset(), 5u);
  expect_block(second.block(0), first.block(3).word[0], first.block(3).word[1],
               first.block(3).word[2], first.block(3).word[3]);
  generator.set_seed(7);
  EXPECT_EQ(generator.offset(), 0u);
  const kiln::RandomStream again = generator.reserve(1);
  EXPECT_EQ(again.block(0).word[0], first.block(0).word[0]);
  generator.set_seed(8);
  EXPECT_NE(generator.reserve(1).block(0).word[0], first.block(0).word[0]);
}

TEST(RandomGeneratorTest, ContextUsesItsGeneratorOrTheDefault) {
  kiln::KernelRuntimeContext ctx;
  EXPECT_EQ(&ctx.random_generator(), &kiln::default_random_generator());
  kiln::RandomGenerator own(1);
  ctx.set_random_generator(&own);
  EXPECT_EQ(&ctx.random_generator(), &own);
  ctx.set_random_generator(nullptr);
  EXPECT_EQ(&ctx.random_generator(), &kiln::default_random_generator());
}

TEST(RandomGeneratorTest, SetRandomSeedSeedsTheDefaultGenerator) {
  kiln::set_random_seed(42);
  EXPECT_EQ(kiln::default_random_generator().seed(), 42u);
  EXPECT_EQ(kiln::default_random_generator().offset(), 0u);
  (void)kiln::default_random_generator().reserve(4);
  kiln::set_random_seed(42);
  EXPECT_EQ(kiln::default_random_generator().offset(), 0u);
}

}  // namespace
