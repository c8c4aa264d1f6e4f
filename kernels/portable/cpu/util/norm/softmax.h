// _softmax and _log_softmax along a dim, for floating dtypes, with the max subtracted: the row and
// column loops, the slice runner and the kernels' shared body.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/reduce/row_loops.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "kernels/portable/cpu/util/vec/float_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {
namespace softmax_detail {

// Elements per conversion buffer and per group of columns.
constexpr int64_t kSoftmaxChunk = 256;
// Rows of a dtype other than C that fit a buffer of this many bytes are converted whole, once.
constexpr int64_t kSoftmaxRowBytes = 16384;

// The row loops. A NaN makes the max NaN, and so the whole slice, as in ATen. These two pick
// their own vector width at run time (reduce/row_loops.h).
template <typename C>
C row_max(const C* x, int64_t n, C start) {
  return extreme_nan<C, true>(x, n, start);
}

// y = e^(x - max); returns the sum of y.
template <typename C>
KILN_NOINLINE C row_exp_sum(const C* x, C* y, int64_t n, C max) {
  return exp_sum_lanes(x, y, n, max);
}

// The other loops, defined for compute type C as functions with `attributes`:
// - row_scale (softmax: y = y * scale) and row_shift (log_softmax: y = x - shift);
// - the column loops, over w independent slices at once, one input row of width w per call:
//   column_max, column_exp_sum (y = e^(x - max), sum += y), then column_scale (softmax: out = y
//   * scale) or column_shift (log_softmax: out = x - max - shift).
// Float's have vector clones. Double's are baseline code, kept out of line: its exponential is
// libm's, one element at a time, which no clone speeds up, and the passes beside it are minor,
// so clones would be bytes in every build with softmax for no speed.
#define KILN_SOFTMAX_LOOPS(C, attributes)                                                          \
  attributes inline void row_scale(C* y, int64_t n, C scale) {                                     \
    for (int64_t i = 0; i < n; ++i) y[i] *= scale;                                                 \
  }                                                                                                \
  attributes inline void row_shift(const C* x, C* y, int64_t n, C shift) {                         \
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;                                           \
  }                                                                                                \
  attributes inline void column_max(const C* x, C* max, int64_t w) {                               \
    for (int64_t i = 0; i < w; ++i) max[i] = max_of(x[i], max[i]);                                 \
  }                                                                                                \
  attributes inline void column_exp_sum(const C* x, C* y, const C* max, C* sum, int64_t w) {       \
    for (int64_t i = 0; i < w; ++i) {                                                              \
      const C e = exp_shifted(x[i] - max[i]);                                                      \
      y[i] = e;                                                                                    \
      sum[i] += e;                                                                                 \
    }                                                                                              \
  }                                                                                                \
  attributes inline void column_scale(const C* y, const C* scale, C* out, int64_t w) {             \
    for (int64_t i = 0; i < w; ++i) out[i] = y[i] * scale[i];                                      \
  }                                                                                                \
  attributes inline void column_shift(const C* x, C* y, const C* max, const C* shift, int64_t w) { \
    for (int64_t i = 0; i < w; ++i) y[i] = x[i] - max[i] - shift[i];                               \
  }

KILN_SOFTMAX_LOOPS(float, KILN_HOT_LOOP)
KILN_SOFTMAX_LOOPS(double, KILN_NOINLINE)
#undef KILN_SOFTMAX_LOOPS

// Softmax (or with kLog, log_softmax) over slices of `size` elements spaced `stride` apart,
// computed in C (float for Half/BFloat16/Float, double for Double). When in and out hold C, rows
// are read and written in place; otherwise they go through conversion buffers of kSoftmaxChunk
// elements.
template <typename C, bool kLog>
class SoftmaxRunner {
 public:
  SoftmaxRunner(const Tensor& in, Tensor& out)
      : dtype_(in.scalar_type()),
        element_size_(in.element_size()),
        direct_(dtype_ == CppToScalarType<C>::value),
        src_(static_cast<const char*>(in.const_data_ptr())),
        dst_(static_cast<char*>(out.mutable_data_ptr())) {}

  // One contiguous slice.
  void row(int64_t base, int64_t size) {
    if (direct()) {
      const C* x = reinterpret_cast<const C*>(src_) + base;
      C* y = reinterpret_cast<C*>(dst_) + base;
      const C max = row_max(x, size, C(-INFINITY));
      const C sum = row_exp_sum(x, y, size, max);
      if constexpr (kLog) {
        row_shift(x, y, size, C(max + std::log(sum)));
      } else {
        row_scale(y, size, C(1) / sum);
      }
      return;
    }
    if (size <= kRowLength) {
      // A row of another dtype that fits: converted once and computed in place (exponentials
      // once), then converted back.
      C* x = row_;
      load_row<C>(src_ + base * element_size_, dtype_, 1, size, x);
      const C max = row_max(x, size, C(-INFINITY));
      if constexpr (kLog) {
        C sum = 0;
        for (int64_t s = 0; s < size; s += kSoftmaxChunk) {
          const int64_t m = size - s < kSoftmaxChunk ? size - s : kSoftmaxChunk;
          sum += row_exp_sum(x + s, buf_, m, max);
        }
        row_shift(x, x, size, C(max + std::log(sum)));
      } else {
        row_scale(x, size, C(1) / row_exp_sum(x, x, size, max));
      }
      store_row<C>(x, size, dtype_, dst_ + base * element_size_);
      return;
    }
    C max = -INFINITY;
    for (int64_t s = 0; s < size; s += kSoftmaxChunk) {
      const int64_t m = size - s < kSoftmaxChunk ? size - s : kSoftmaxChunk;
      max = row_max(read(base + s, m), m, max);
    }
    C sum = 0;
    for (int64_t s = 0; s < size; s += kSoftmaxChunk) {
      const int64_t m = size - s < kSoftmaxChunk ? size - s : kSoftmaxChunk;
      sum += row_exp_sum(read(base + s, m), buf_, m, max);
    }
    for (int64_t s = 0; s < size; s += kSoftmaxChunk) {
      const int64_t m = size - s < kSoftmaxChunk ? size - s : kSoftmaxChunk;
      const C* x = read(base + s, m);
      if constexpr (kLog) {
        row_shift(x, buf_, m, C(max + std::log(sum)));
      } else {
        row_exp_sum(x, buf_, m, max);
        row_scale(buf_, m, C(1) / sum);
      }
      store_row<C>(buf_, m, dtype_, dst_ + (base + s) * element_size_);
    }
  }

  // `width` <= kSoftmaxChunk neighbouring slices: slice w holds x[base + d * stride + w].
  void columns(int64_t base, int64_t size, int64_t stride, int64_t width) {
    for (int64_t w = 0; w < width; ++w) {
      max_[w] = -INFINITY;
      sum_[w] = 0;
      spare_[w] = 0;
    }
    for (int64_t d = 0; d < size; ++d) column_max(read(base + d * stride, width), max_, width);
    // Softmax into an out of C keeps the exponentials there and scales them in place; otherwise
    // they are summed from a buffer, and softmax computes them again at the end.
    const bool keep = !kLog && direct();
    for (int64_t d = 0; d < size; ++d) {
      const int64_t offset = base + d * stride;
      C* e = keep ? reinterpret_cast<C*>(dst_) + offset : buf_;
      column_exp_sum(read(offset, width), e, max_, sum_, width);
    }
    for (int64_t w = 0; w < width; ++w) sum_[w] = kLog ? std::log(sum_[w]) : C(1) / sum_[w];
    for (int64_t d = 0; d < size; ++d) {
      const int64_t offset = base + d * stride;
      C* y = direct() ? reinterpret_cast<C*>(dst_) + offset : buf_;
      if constexpr (kLog) {
        column_shift(read(offset, width), y, max_, sum_, width);
      } else {
        if (!keep) column_exp_sum(read(offset, width), y, max_, spare_, width);
        column_scale(y, sum_, y, width);
      }
      if (!direct()) store_row<C>(buf_, width, dtype_, dst_ + offset * element_size_);
    }
  }

 private:
  // Whether in and out hold C. Double computes for Double alone, so it always reads in place.
  bool direct() const { return std::is_same_v<C, double> || direct_; }

  // n input elements from `offset`, as C: in place when the input holds C, else converted.
  const C* read(int64_t offset, int64_t n) {
    if (direct()) return reinterpret_cast<const C*>(src_) + offset;
    load_row<C>(src_ + offset * element_size_, dtype_, 1, n, in_buf_);
    return in_buf_;
  }

  ScalarType dtype_;
  size_t element_size_;
  bool direct_;
  const char* src_;
  char* dst_;
  static constexpr int64_t kRowLength = kSoftmaxRowBytes / static_cast<int64_t>(sizeof(C));
  C row_[kRowLength];
  C in_buf_[kSoftmaxChunk];
  C buf_[kSoftmaxChunk];
  C max_[kSoftmaxChunk];
  C sum_[kSoftmaxChunk];
  C spare_[kSoftmaxChunk];  // sums of a pass that needs only the exponentials
};

}  // namespace softmax_detail

// _softmax (kLog false) or _log_softmax along `dim`. A template so each of the two op files
// instantiates its own, under its own dtype selection.
template <bool kLog>
Tensor& softmax_common(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                       bool half_to_float, Tensor& out) {
  constexpr bool log = kLog;
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, !half_to_float, NotSupported, out,
                        "softmax with half to float conversion is not supported on CPU; pass "
                        "half_to_float=False");
  int64_t axis = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &axis)) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  // Like ATen, an empty input of any dtype is fine: there is nothing to compute.
  if (self.numel() == 0) return out;
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(self.scalar_type()), InvalidType, out,
                        "%s is not implemented for dtype %s; pass a floating point tensor "
                        "(Half, BFloat16, Float or Double)",
                        log ? "log_softmax" : "softmax", to_string(self.scalar_type()));
  if (!check_compute_type_compiled(ctx, self.scalar_type(), log ? "log_softmax" : "softmax")) {
    return out;
  }
  const int64_t size = self.dim() == 0 ? 1 : self.size(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t outer = self.numel() / (size * inner);
  // Work items: a row (inner == 1) or a block of up to kSoftmaxChunk neighbouring slices, each
  // computed alone, so threads split them without changing any result.
  constexpr int64_t kChunk = softmax_detail::kSoftmaxChunk;
  const int64_t blocks = (inner + kChunk - 1) / kChunk;
  const int64_t grain = items_grain(size * (inner < kChunk ? inner : kChunk));
  dispatch_compute_type<kFloatingTypes>(self.scalar_type(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (compute_type_selected<C>()) {
      parallel_for(ctx, 0, outer * blocks, grain, [&](int64_t first, int64_t last) {
        softmax_detail::SoftmaxRunner<C, kLog> runner(self, out);
        for (int64_t item = first; item < last; ++item) {
          const int64_t base = item / blocks * size * inner;
          if (inner == 1) {
            runner.row(base, size);
            continue;
          }
          const int64_t i = item % blocks * kChunk;
          runner.columns(base + i, size, inner, inner - i < kChunk ? inner - i : kChunk);
        }
      });
    }
  });
  return out;
}

}  // namespace kiln::portable
