// The row converters of util/vec/convert.h between the 16-bit floats (Half, BFloat16) and the
// compute types double and int64_t, which go through float a block at a time, must give what
// converting each element does: load as C(float(x)), store as T(float(x)), round as
// C(float(T(float(x)))). Rows of every length around the blocks (256) and F16C's steps (8, 16),
// with NaN, infinities, signed zeros and magnitudes past Half's range.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

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

}  // namespace
}  // namespace kiln::portable
