// Shared pieces of Kiln's LLM-serving operators: the gated activations' out and float row loops.
#include "kernels/portable/cpu/util/llm/common.h"

#include <cstring>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/gated_activation.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/core/half.h"

namespace kiln::portable {

bool prepare_gated(KernelRuntimeContext& ctx, const Tensor& input, Tensor& out, const char* op,
                   int64_t* rows, int64_t* d) {
  if (!check_gated_input(ctx, input, op, d, /*row_views=*/true) || !check_tensor(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, input.scalar_type())) {
    return false;
  }
  const int64_t rank = input.dim();
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0; i < rank; ++i) sizes[i] = input.size(i);
  sizes[rank - 1] = static_cast<SizesType>(*d);
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)}) ||
      !check_row_activation(ctx, out, "out", /*is_out=*/true)) {
    return false;
  }
  *rows = *d == 0 ? 0 : out.numel() / *d;
  return true;
}

// The 16-bit rows are vec/convert.h's (F16C, NEON or bit operations): one set for every kernel.
void load_floats(const void* src, ScalarType type, int64_t stride, int64_t n, float* dst) {
  load_row<float>(src, type, stride, n, dst);
}

void store_floats(const float* src, int64_t n, ScalarType type, void* dst) {
  if (type != ScalarType::Float) return store_row<float>(src, n, type, dst);
  if (src != dst) std::memcpy(dst, src, n * sizeof(float));
}

void round_floats(float* values, int64_t n, ScalarType type) { round_row<float>(values, n, type); }

namespace {

// Four vectors of partial sums of f(a[i], b[i]) (a sum of products), then the tail.
template <bool kSquare>
KILN_ALWAYS_INLINE float lane_sum(const float* a, const float* b, int64_t n) {
  using V = Vector<float>;
  constexpr int kWidth = sizeof(V) / sizeof(float);
  V acc[4] = {};
  int64_t i = 0;
  for (; i + 4 * kWidth <= n; i += 4 * kWidth) {
    KILN_UNROLL
    for (int k = 0; k < 4; ++k) {
      V x, y;
      std::memcpy(&x, a + i + k * kWidth, sizeof(x));
      if constexpr (kSquare) {
        y = x;
      } else {
        std::memcpy(&y, b + i + k * kWidth, sizeof(y));
      }
      acc[k] += x * y;
    }
  }
  const V total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  float sum = 0.0f;
  for (int j = 0; j < kWidth; ++j) sum += total[j];
  for (; i < n; ++i) sum += a[i] * (kSquare ? a[i] : b[i]);
  return sum;
}

}  // namespace

KILN_HOT_LOOP float sum_of_squares(const float* x, int64_t n) {
  return lane_sum<true>(x, nullptr, n);
}

KILN_HOT_LOOP float dot_row(const float* a, const float* b, int64_t n) {
  return lane_sum<false>(a, b, n);
}

KILN_HOT_LOOP void scale_row(const float* x, float scale, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale;
}

KILN_HOT_LOOP void multiply_rows(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

KILN_HOT_LOOP void add_rows(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

KILN_HOT_LOOP void axpy_row(float scale, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += scale * x[i];
}

}  // namespace kiln::portable
