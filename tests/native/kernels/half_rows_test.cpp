// Half rows of a cheap float op into a Half out convert inline (isa/x86/half_rows.h: eight lanes on
// x86-64-v3, sixteen on x86-64-v4) where the CPU can, and a chunk at a time through float buffers
// (the plain path, util/elementwise/binary_driver.h's chunked_row) elsewhere. Every version must
// give the chunked path's bits on any bit patterns, NaN and infinities included, for every stride
// and a float scalar.
#include "kernels/portable/cpu/isa/x86/half_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/portable/cpu/isa/x86/cpu_features.h"
#include "kernels/portable/cpu/util/elementwise/binary_driver.h"

namespace kiln::portable {
namespace {

#if defined(KILN_ISA_X86)

std::vector<Half> random_patterns(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<Half> values(static_cast<size_t>(n));
  for (Half& value : values) value = Half::from_bits(static_cast<uint16_t>(gen()));
  return values;
}

bool is_nan(Half value) { return (value.x & 0x7fff) > 0x7c00; }

// The same bits, or both NaN: which operand's NaN payload an operation keeps depends on how the
// compiler ordered it (FMA or not), as between ATen's own vector and scalar paths.
bool same(Half a, Half b) { return a.x == b.x || (is_nan(a) && is_nan(b)); }

struct Add {
  float operator()(float a, float b) const { return a + b; }
};
struct Multiply {
  float operator()(float a, float b) const { return a * b; }
};
// A select, as maximum's: NaN in a wins.
struct Larger {
  float operator()(float a, float b) const { return a > b || a != a ? a : b; }
};

// Each inline version against the chunked path over n elements with strides sa and sb, each into
// a cleared out.
template <typename B, typename Op>
void expect_same_bits(const Half* a, int64_t sa, const B* b, int64_t sb, int64_t n, const Op& op) {
  std::vector<Half> chunked(static_cast<size_t>(n));
  std::vector<Half> converted_inline(static_cast<size_t>(n));
  detail::chunked_row(a, sa, b, sb, chunked.data(), n, op);
  const auto expect_same = [&](const char* version) {
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(same(converted_inline[i], chunked[i]))
          << converted_inline[i].x << " against " << chunked[i].x << ", " << version << ", element "
          << i << " of " << n << ", strides " << sa << " and " << sb;
    }
  };
  isa::x86::half_row_v3(a, sa, b, sb, converted_inline.data(), n, op);
  expect_same("x86-64-v3");
  if (isa::x86::cpu_is_x86_64_v4()) {
    std::fill(converted_inline.begin(), converted_inline.end(), Half());
    isa::x86::half_row_v4(a, sa, b, sb, converted_inline.data(), n, op);
    expect_same("x86-64-v4");
  }
}

template <typename Op>
void expect_same_bits_for_every_stride(const Op& op) {
  const std::vector<Half> a = random_patterns(1000, 1);
  const std::vector<Half> b = random_patterns(1000, 2);
  const float scalar = 0.3f;
  // Around both versions' steps (8 and 16), and a long row with a tail.
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{17}, int64_t{1000}}) {
    expect_same_bits(a.data(), 1, b.data(), 1, n, op);
    expect_same_bits(a.data(), 0, b.data(), 1, n, op);
    expect_same_bits(a.data(), 1, b.data(), 0, n, op);
    expect_same_bits(a.data(), 1, &scalar, 0, n, op);
  }
}

#endif

class HalfRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(KILN_ISA_X86)
    if (!isa::x86::cpu_is_x86_64_v3()) GTEST_SKIP() << "the inline loops need an x86-64-v3 CPU";
#else
    GTEST_SKIP() << "the inline loops are x86-64's, in a build with the ISA room";
#endif
  }
};

TEST_F(HalfRowsTest, ArithmeticAgreesInlineAndInChunks) {
#if defined(KILN_ISA_X86)
  expect_same_bits_for_every_stride(Add{});
  expect_same_bits_for_every_stride(Multiply{});
#endif
}

TEST_F(HalfRowsTest, SelectsAgreeInlineAndInChunks) {
#if defined(KILN_ISA_X86)
  expect_same_bits_for_every_stride(Larger{});
#endif
}

}  // namespace
}  // namespace kiln::portable
