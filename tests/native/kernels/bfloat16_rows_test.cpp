// BFloat16 rows of a cheap float op run one of two ways (util/elementwise/binary_driver.h's
// reduced_row): converting inline (the plain loop, and the ISA room's x86-64-v3 and x86-64-v4
// compiles of it, isa/binary_rows.h) or a chunk at a time through float buffers (x86-64 CPUs older
// than v3 in a build with the ISA room). All must give the same bits, on any bit patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "kernels/portable/cpu/isa/x86/cpu_features.h"
#include "kernels/portable/cpu/isa/x86/target.h"
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"

namespace kiln::portable {
namespace {

constexpr int64_t kLength = 1000;  // several of chunked_row's 256-element chunks

std::vector<BFloat16> random_patterns(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<BFloat16> values(static_cast<size_t>(n));
  for (BFloat16& value : values) value = BFloat16::from_bits(static_cast<uint16_t>(gen()));
  return values;
}

struct Add {
  float operator()(float a, float b) const { return a + b; }
};
struct Multiply {
  float operator()(float a, float b) const { return a * b; }
};
struct Less {
  bool operator()(float a, float b) const { return a < b; }
};

uint16_t bits_of(BFloat16 value) { return value.x; }
bool bits_of(bool value) { return value; }

// Both ways over a row of n elements with strides sa and sb (0 repeats the first element).
template <typename R, typename B, typename Op>
void expect_same_bits(const BFloat16* a, int64_t sa, const B* b, int64_t sb, int64_t n,
                      const Op& op) {
  // Arrays rather than vectors: std::vector<bool> has no bool* to write to.
  const std::unique_ptr<R[]> converted_inline(new R[static_cast<size_t>(n)]());
  const std::unique_ptr<R[]> chunked(new R[static_cast<size_t>(n)]());
  detail::chunked_row(a, sa, b, sb, chunked.get(), n, op);
  // Each version writes over a cleared out, so neither passes on what the other wrote.
  const auto expect_same = [&](const char* version) {
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(bits_of(converted_inline[i]), bits_of(chunked[i]))
          << version << ", element " << i << " of " << n << ", strides " << sa << " and " << sb;
    }
  };
  detail::bfloat16_row(a, sa, b, sb, converted_inline.get(), n, op);
  expect_same("plain");
#if defined(KILN_ISA_X86)
  if (isa::x86::cpu_is_x86_64_v3()) {
    std::fill(converted_inline.get(), converted_inline.get() + n, R{});
    isa::x86::run_v3<detail::BFloat16Row>(a, sa, b, sb, converted_inline.get(), n, op);
    expect_same("x86-64-v3");
  }
  if (isa::x86::cpu_is_x86_64_v4()) {
    std::fill(converted_inline.get(), converted_inline.get() + n, R{});
    isa::x86::run_v4<detail::BFloat16Row>(a, sa, b, sb, converted_inline.get(), n, op);
    expect_same("x86-64-v4");
  }
#endif
}

template <typename R, typename Op>
void expect_same_bits_for_every_stride(const Op& op) {
  const std::vector<BFloat16> a = random_patterns(kLength, 1);
  const std::vector<BFloat16> b = random_patterns(kLength, 2);
  for (const int64_t n : {int64_t{1}, int64_t{7}, kLength}) {
    expect_same_bits<R>(a.data(), 1, b.data(), 1, n, op);
    expect_same_bits<R>(a.data(), 0, b.data(), 1, n, op);
    expect_same_bits<R>(a.data(), 1, b.data(), 0, n, op);
  }
}

TEST(BFloat16RowsTest, ArithmeticAgreesInlineAndInChunks) {
  expect_same_bits_for_every_stride<BFloat16>(Add{});
  expect_same_bits_for_every_stride<BFloat16>(Multiply{});
}

TEST(BFloat16RowsTest, PredicatesAgreeInlineAndInChunks) {
  expect_same_bits_for_every_stride<bool>(Less{});
}

TEST(BFloat16RowsTest, AnExactFloatScalarAgreesInlineAndInChunks) {
  // mul and div read a single-element other straight into float (ScalarOther::kExact).
  const std::vector<BFloat16> a = random_patterns(kLength, 3);
  for (const float scalar : {0.3f, -7.0e-30f, 3.0e38f}) {
    expect_same_bits<BFloat16>(a.data(), 1, &scalar, 0, kLength, Multiply{});
  }
}

}  // namespace
}  // namespace kiln::portable
