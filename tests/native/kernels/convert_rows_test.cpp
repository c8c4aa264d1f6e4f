// The row converters of util/vec/convert.h between the 16-bit floats (Half, BFloat16) and the
// compute types double and int64_t, which go through float a block at a time, must give what
// converting each element does: load as C(float(x)), store as T(float(x)), round as
// C(float(T(float(x)))). Rows of every length around the blocks (256) and F16C's steps (8, 16),
// with NaN, infinities, signed zeros and magnitudes past Half's range. And the ISA room's rows
// (isa/x86/convert_f16c.h) must give the scalar converters' bits (runtime/core/half.h), which the
// plain rows compute: every Half pattern, float patterns of every kind, every tail length.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/isa/x86/convert_f16c.h"
#include "kernels/portable/cpu/isa/x86/cpu_features.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {
namespace {

constexpr int64_t kLengths[] = {0, 1, 7, 8, 9, 17, 255, 256, 257, 600};

template <typename C>
std::vector<C> random_values(int64_t n, std::mt19937* gen) {
  std::vector<C> values(static_cast<size_t>(n));
  if constexpr (std::is_integral_v<C>) {
    std::uniform_int_distribution<int64_t> spread(-99999, 99999);
    for (C& value : values) value = spread(*gen);
  } else {
    std::normal_distribution<double> normal(0.0, 3e4);
    std::uniform_int_distribution<int> pick(0, 15);
    const double kSpecials[] = {INFINITY, -INFINITY, 0.0, -0.0, NAN};
    for (C& value : values) {
      value = normal(*gen);
      if (pick(*gen) == 0) value = kSpecials[pick(*gen) % 5];
    }
  }
  return values;
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

template <typename C, typename T>
void expect_rows_match_elements() {
  constexpr ScalarType kType = CppToScalarType<T>::value;
  std::mt19937 gen(5);
  for (const int64_t n : kLengths) {
    const std::vector<C> values = random_values<C>(n, &gen);
    const size_t count = static_cast<size_t>(n);

    std::vector<T> stored(count);
    store_row<C>(values.data(), n, kType, stored.data());
    for (size_t i = 0; i < count; ++i) {
      const float expected = T(static_cast<float>(values[i]));
      ASSERT_TRUE(same(static_cast<float>(stored[i]), expected))
          << "store, element " << i << " of " << n << ": " << static_cast<double>(values[i]);
    }

    std::vector<C> loaded(count);
    load_row<C>(stored.data(), kType, 1, n, loaded.data());
    for (size_t i = 0; i < count; ++i) {
      const float element = stored[i];
      if constexpr (std::is_integral_v<C>) {
        if (!std::isfinite(element)) continue;  // no integer holds it: ATen's cast is undefined
      }
      ASSERT_TRUE(same(static_cast<double>(loaded[i]), static_cast<C>(element)))
          << "load, element " << i << " of " << n;
    }

    if constexpr (std::is_floating_point_v<C>) {
      std::vector<C> rounded = values;
      round_row<C>(rounded.data(), n, kType);
      for (size_t i = 0; i < count; ++i) {
        const C expected = static_cast<float>(T(static_cast<float>(values[i])));
        ASSERT_TRUE(same(rounded[i], expected))
            << "round, element " << i << " of " << n << ": " << values[i];
      }
    }
  }
}

TEST(ConvertRowsTest, DoubleMeetsHalfAndBFloat16ThroughFloat) {
  expect_rows_match_elements<double, Half>();
  expect_rows_match_elements<double, BFloat16>();
}

TEST(ConvertRowsTest, Int64MeetsHalfAndBFloat16ThroughFloat) {
  expect_rows_match_elements<int64_t, Half>();
  expect_rows_match_elements<int64_t, BFloat16>();
}

#if defined(KILN_ISA_X86)

// Float patterns: random bits (NaN payloads, subnormals, huge values), values around Half's
// rounding boundaries and range, and the specials.
std::vector<float> float_patterns() {
  std::mt19937 gen(9);
  std::vector<float> values;
  for (int i = 0; i < 200000; ++i)
    values.push_back(kiln::detail::bits_float(static_cast<uint32_t>(gen())));
  std::uniform_real_distribution<float> spread(-70000.0f, 70000.0f);
  for (int i = 0; i < 100000; ++i) values.push_back(spread(gen));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {  // every Half, and halfway past it
    const float half = kiln::detail::half_bits_to_float(static_cast<uint16_t>(bits));
    values.push_back(half);
    values.push_back(kiln::detail::bits_float(kiln::detail::float_bits(half) + 0x1000));
  }
  for (const float special : {INFINITY, -INFINITY, 0.0f, -0.0f, NAN, 65520.0f, 65519.99f}) {
    values.push_back(special);
  }
  return values;
}

bool same_half(uint16_t a, uint16_t b) {
  const bool nan_a = (a & 0x7fff) > 0x7c00;
  const bool nan_b = (b & 0x7fff) > 0x7c00;
  return a == b || (nan_a && nan_b);  // a NaN's payload may differ, as in ATen
}

bool same_float(float a, float b) {
  return kiln::detail::float_bits(a) == kiln::detail::float_bits(b) ||
         (std::isnan(a) && std::isnan(b));
}

void expect_isa_rows_give_the_scalar_bits() {
  std::vector<Half> halves(0x10000);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    halves[bits] = Half::from_bits(static_cast<uint16_t>(bits));
  }
  const std::vector<float> floats = float_patterns();
  // Each length from 0 to 40 at an odd offset (the tails), then the whole set.
  for (int64_t n = 0; n <= 41; ++n) {
    const bool whole = n == 41;
    const int64_t start = whole ? 0 : 3;
    const int64_t wide_n = whole ? static_cast<int64_t>(halves.size()) : n;
    std::vector<float> widened(static_cast<size_t>(wide_n));
    ASSERT_EQ(isa::x86::widen_half_f16c(halves.data() + start, widened.data(), wide_n), wide_n);
    for (int64_t i = 0; i < wide_n; ++i) {
      ASSERT_TRUE(same_float(widened[i], kiln::detail::half_bits_to_float(halves[start + i].x)))
          << "widen " << halves[start + i].x;
    }
    const int64_t narrow_n = whole ? static_cast<int64_t>(floats.size()) : n;
    const float* from = floats.data() + start;
    std::vector<Half> narrowed(static_cast<size_t>(narrow_n));
    ASSERT_EQ(isa::x86::narrow_half_f16c(from, narrowed.data(), narrow_n), narrow_n);
    std::vector<float> rounded(from, from + narrow_n);
    ASSERT_EQ(isa::x86::round_half_f16c(rounded.data(), narrow_n), narrow_n);
    std::vector<BFloat16> bfloat16s(static_cast<size_t>(narrow_n));
    const int64_t done = isa::x86::narrow_bfloat16_avx2(from, bfloat16s.data(), narrow_n);
    ASSERT_EQ(done, narrow_n / 16 * 16);
    for (int64_t i = 0; i < narrow_n; ++i) {
      const uint16_t half = kiln::detail::float_to_half_bits(from[i]);
      ASSERT_TRUE(same_half(narrowed[i].x, half)) << "narrow to Half " << from[i];
      ASSERT_TRUE(same_float(rounded[i], kiln::detail::half_bits_to_float(half)))
          << "round to Half " << from[i];
      if (i < done) {
        ASSERT_EQ(bfloat16s[i].x, kiln::detail::float_to_bfloat16_bits(from[i]))
            << "narrow to BFloat16 " << from[i];
      }
    }
  }
}

#endif

TEST(ConvertRowsTest, TheIsaRowsGiveTheScalarConvertersBits) {
#if defined(KILN_ISA_X86)
  if (!isa::x86::cpu_is_x86_64_v3()) GTEST_SKIP() << "F16C's rows need an x86-64-v3 CPU";
  expect_isa_rows_give_the_scalar_bits();
#else
  GTEST_SKIP() << "the ISA rows are x86-64's, in a build with the ISA room";
#endif
}

}  // namespace
}  // namespace kiln::portable
