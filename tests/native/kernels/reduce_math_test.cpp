// The hand-vectorised row loops of util/reduce/row_loops.h have two versions each, picked at run
// time (isa/row_loops.h): the ISA room's x86-64-v3 compile with 32-byte vectors and the plain
// baseline one of the build's own width.
// - extreme_nan, the max/min with NaN winning behind softmax, logsumexp and the max/min
//   reductions, must give what a plain loop gives;
// - the float exp-and-sum behind softmax and logsumexp must give e^x within float rounding, 0
//   below float's range and NaN for NaN, and a sum that agrees between the versions;
// on rows of every length around the vector loops' steps, with NaN, infinities and signed zeros.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/portable/cpu/isa/x86/cpu_features.h"
#include "kernels/portable/cpu/isa/x86/target.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"

namespace kiln::portable {
namespace {

template <typename C, bool kMax>
C reference(const std::vector<C>& x, int64_t n, C start) {
  C result = start;
  bool nan = std::isnan(start);
  for (int64_t i = 0; i < n; ++i) {
    nan = nan || std::isnan(x[i]);
    if (kMax ? x[i] > result : x[i] < result) result = x[i];
  }
  return nan ? std::numeric_limits<C>::quiet_NaN() : result;
}

// Finite values with a few specials dropped in at random places.
template <typename C>
std::vector<C> random_row(int64_t n, std::mt19937* gen, bool specials) {
  std::normal_distribution<double> normal(0.0, 100.0);
  std::uniform_int_distribution<int> pick(0, 15);
  const C kSpecials[] = {std::numeric_limits<C>::infinity(), -std::numeric_limits<C>::infinity(),
                         C(0.0), C(-0.0), std::numeric_limits<C>::quiet_NaN()};
  std::vector<C> row(static_cast<size_t>(n));
  for (C& value : row) {
    value = static_cast<C>(normal(*gen));
    if (specials && pick(*gen) == 0) value = kSpecials[pick(*gen) % 5];
  }
  return row;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

template <typename C, bool kMax, typename Fn>
void expect_matches_plain_loop(Fn version) {
  std::mt19937 gen(7);
  for (int64_t n = 0; n <= 70; ++n) {  // past 64, the 32-byte version's step for float
    for (const bool specials : {false, true}) {
      const std::vector<C> row = random_row<C>(n, &gen, specials);
      for (const C start :
           {-std::numeric_limits<C>::infinity(), C(3.0), std::numeric_limits<C>::quiet_NaN()}) {
        const C expected = reference<C, kMax>(row, n, start);
        const C got = version(row.data(), n, start);
        ASSERT_TRUE(same(got, expected))
            << "n " << n << ", start " << start << ": got " << got << ", expected " << expected;
      }
    }
  }
  // A long row with a single NaN at the end, which only the scalar tail sees.
  std::vector<C> row = random_row<C>(1000, &gen, false);
  row.push_back(std::numeric_limits<C>::quiet_NaN());
  EXPECT_TRUE(std::isnan(version(row.data(), 1001, C(0))));
}

template <typename C, bool kMax>
void expect_both_versions_match() {
  using Loop = ExtremeNanLoop<C, kMax>;
  expect_matches_plain_loop<C, kMax>([](const C* x, int64_t n, C start) {
    return Loop::template run<kBaselineVectorBytes>(x, n, start);
  });
#if defined(KILN_ISA_X86)
  if (isa::x86::cpu_is_x86_64_v3()) {
    expect_matches_plain_loop<C, kMax>(
        [](const C* x, int64_t n, C start) { return isa::x86::run_v3<Loop>(x, n, start); });
  }
#endif
}

TEST(ExtremeNanTest, FloatMaxAndMin) {
  expect_both_versions_match<float, true>();
  expect_both_versions_match<float, false>();
}

TEST(ExtremeNanTest, DoubleMaxAndMin) {
  expect_both_versions_match<double, true>();
  expect_both_versions_match<double, false>();
}

using ExpSum = float (*)(const float*, float*, int64_t, float);

// e^(x - shift) for rows of x <= shift (softmax's x - max), some far below float's range.
void expect_exp_sum_correct(ExpSum version, ExpSum other) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> spread(-100.0f, 0.0f);
  std::uniform_int_distribution<int> pick(0, 19);
  for (int64_t n : {0, 1, 7, 15, 16, 17, 31, 33, 64, 70, 1000}) {
    for (const bool nan : {false, true}) {
      std::vector<float> x(static_cast<size_t>(n));
      for (float& value : x) value = pick(gen) == 0 ? -INFINITY : spread(gen) + 2.0f;
      if (nan && n > 0) x[static_cast<size_t>(n) / 2] = NAN;
      std::vector<float> y(static_cast<size_t>(n));
      const float shift = 2.0f;
      const float sum = version(x.data(), y.data(), n, shift);
      double expected_sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double expected = std::exp(static_cast<double>(x[i]) - shift);
        const float got = y[static_cast<size_t>(i)];
        expected_sum += expected;
        if (std::isnan(x[i])) {
          ASSERT_TRUE(std::isnan(got)) << "element " << i << " of " << n;
        } else if (expected < 1.1754944e-38) {  // below FLT_MIN: flushed to 0
          ASSERT_LE(got, 1.1754944e-38f) << "element " << i << " of " << n;
        } else {
          ASSERT_NEAR(got, expected, 4e-7 * expected) << "element " << i << " of " << n;
        }
      }
      if (nan && n > 0) {
        EXPECT_TRUE(std::isnan(sum)) << n;
        continue;
      }
      EXPECT_NEAR(sum, expected_sum, 1e-5 * expected_sum + 1e-30) << n;
      // Without y, the same sum; the other version adds in the same order (up to FMA rounding).
      EXPECT_EQ(version(x.data(), nullptr, n, shift), sum) << n;
      EXPECT_NEAR(other(x.data(), nullptr, n, shift), sum, 1e-6 * sum + 1e-30) << n;
    }
  }
}

float exp_sum_baseline(const float* x, float* y, int64_t n, float shift) {
  return ExpSumFloatLoop::run<kBaselineVectorBytes>(x, y, n, shift);
}

#if defined(KILN_ISA_X86)
float exp_sum_v3(const float* x, float* y, int64_t n, float shift) {
  return isa::x86::run_v3<ExpSumFloatLoop>(x, y, n, shift);
}
#endif

TEST(ExpSumTest, FloatRowsInBothVersions) {
#if defined(KILN_ISA_X86)
  if (isa::x86::cpu_is_x86_64_v3()) {
    expect_exp_sum_correct(exp_sum_v3, exp_sum_baseline);
    expect_exp_sum_correct(exp_sum_baseline, exp_sum_v3);
    return;
  }
#endif
  expect_exp_sum_correct(exp_sum_baseline, exp_sum_baseline);
}

}  // namespace
}  // namespace kiln::portable
