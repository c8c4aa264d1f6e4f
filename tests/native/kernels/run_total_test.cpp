// Half runs of sum, prod and mean convert inside the summing loop where the CPU can
// (isa/x86/half_totals.h: eight lanes on x86-64-v3, sixteen on x86-64-v4) and are widened into a
// buffer elsewhere. Every version must give run_total's bits on the same values as floats: the same
// lanes, the same order, on lengths around the lanes (32) and the blocks (1024), with specials.
#include "kernels/portable/cpu/util/reduce/run_total.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/portable/cpu/isa/x86/cpu_features.h"
#include "kernels/portable/cpu/isa/x86/half_totals.h"

namespace kiln::portable {
namespace {

#if defined(KILN_ISA_X86)

// Values over many binades (so that float sums round, and their order shows), or near 1 for
// products (which would otherwise overflow or vanish); with `specials`, an infinity or NaN now
// and then.
std::vector<Half> random_halves(int64_t n, uint32_t seed, bool near_one, bool specials) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> binade(-12, 12);
  std::uniform_int_distribution<int> pick(0, 199);
  std::vector<Half> values(static_cast<size_t>(n));
  for (Half& value : values) {
    const int special = specials ? pick(gen) : 3;
    float x = near_one ? 1.0f + 0.1f * normal(gen) : std::ldexp(normal(gen), binade(gen));
    if (special < 3) x = special == 0 ? INFINITY : special == 1 ? -INFINITY : NAN;
    value = Half(x);
  }
  return values;
}

bool same_bits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x == y;
}

template <bool kProd>
void expect_float_bits(int64_t n, bool specials) {
  const std::vector<Half> halves = random_halves(n, static_cast<uint32_t>(n) + 1, kProd, specials);
  std::vector<float> floats(halves.size());
  for (size_t i = 0; i < halves.size(); ++i) floats[i] = static_cast<float>(halves[i]);
  const double expected = run_total<float, kProd>(floats.data(), n);
  const double v3 = isa::x86::half_run_total_v3<kProd>(halves.data(), n);
  EXPECT_TRUE(same_bits(v3, expected))
      << "x86-64-v3, n " << n << ": " << v3 << " against " << expected;
  if (isa::x86::cpu_is_x86_64_v4()) {
    const double v4 = isa::x86::half_run_total_v4<kProd>(halves.data(), n);
    EXPECT_TRUE(same_bits(v4, expected))
        << "x86-64-v4, n " << n << ": " << v4 << " against " << expected;
  }
}

template <bool kProd>
void expect_float_bits_around_lanes_and_blocks() {
  for (const int64_t n : {0, 1, 7, 31, 32, 33, 65, 1023, 1024, 1025, 3000}) {
    expect_float_bits<kProd>(n, false);
  }
  expect_float_bits<kProd>(40, true);
  expect_float_bits<kProd>(1025, true);
}

#endif

class HalfRunTotalTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(KILN_ISA_X86)
    if (!isa::x86::cpu_is_x86_64_v3()) GTEST_SKIP() << "the inline loops need an x86-64-v3 CPU";
#else
    GTEST_SKIP() << "the inline loops are x86-64's, in a build with the ISA room";
#endif
  }
};

TEST_F(HalfRunTotalTest, SumsGiveTheFloatRunsBits) {
#if defined(KILN_ISA_X86)
  expect_float_bits_around_lanes_and_blocks<false>();
#endif
}

TEST_F(HalfRunTotalTest, ProductsGiveTheFloatRunsBits) {
#if defined(KILN_ISA_X86)
  expect_float_bits_around_lanes_and_blocks<true>();
#endif
}

}  // namespace
}  // namespace kiln::portable
