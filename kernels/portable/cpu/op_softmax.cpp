// _softmax.out: exp(x - max) / sum(exp(x - max)) along `dim`, for floating dtypes.
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/dtype_util.h"
#include "kernels/portable/cpu/util/vec_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

constexpr int64_t kChunk = 256;

// Softmax over `size` rows spaced `stride` elements apart, `width` <= kChunk contiguous columns
// at a time. With width 1 and stride 1 it is one contiguous row, walked in chunks instead.
// Computed in C (float for Half/BFloat16/Float, double for Double). When out holds C, exp values
// are written once and rescaled in place; otherwise they are recomputed for the converting store.
template <typename C>
class SoftmaxRunner {
 public:
  SoftmaxRunner(const Tensor& in, Tensor& out)
      : dtype_(in.scalar_type()),
        element_size_(in.element_size()),
        direct_(dtype_ == CppToScalarType<C>::value),
        src_(static_cast<const char*>(in.const_data_ptr())),
        dst_(static_cast<char*>(out.mutable_data_ptr())) {}

  // Each "column" w sums over d of x[base + d * stride + w].
  void columns(int64_t base, int64_t size, int64_t stride, int64_t width) {
    for (int64_t w = 0; w < width; ++w) {
      max_[w] = -INFINITY;
      sum_[w] = 0;
    }
    // NaN never compares greater, so a NaN keeps the max finite and turns the sum NaN, which
    // makes the whole slice NaN as in ATen.
    for (int64_t d = 0; d < size; ++d) {
      const C* x = read(base + d * stride, width);
      for (int64_t w = 0; w < width; ++w) max_[w] = max_of(x[w], max_[w]);
    }
    for (int64_t d = 0; d < size; ++d) {
      const int64_t offset = base + d * stride;
      const C* x = read(offset, width);
      C* y = direct_ ? out_ptr(offset) : buf_;
      for (int64_t w = 0; w < width; ++w) {
        y[w] = exp_compute(x[w] - max_[w]);
        sum_[w] += y[w];
      }
    }
    for (int64_t w = 0; w < width; ++w) sum_[w] = C(1) / sum_[w];
    for (int64_t d = 0; d < size; ++d) {
      const int64_t offset = base + d * stride;
      if (direct_) {
        C* y = out_ptr(offset);
        for (int64_t w = 0; w < width; ++w) y[w] *= sum_[w];
      } else {
        const C* x = read(offset, width);
        for (int64_t w = 0; w < width; ++w) buf_[w] = exp_compute(x[w] - max_[w]) * sum_[w];
        write(offset, width);
      }
    }
  }

  void row(int64_t base, int64_t size) {
    C max = -INFINITY;
    for (int64_t s = 0; s < size; s += kChunk) {
      const int64_t m = size - s < kChunk ? size - s : kChunk;
      max = max_lanes(read(base + s, m), m, max);
    }
    C sum = 0;
    for (int64_t s = 0; s < size; s += kChunk) {
      const int64_t m = size - s < kChunk ? size - s : kChunk;
      const C* x = read(base + s, m);
      C* y = direct_ ? out_ptr(base + s) : buf_;
      for (int64_t i = 0; i < m; ++i) y[i] = exp_compute(x[i] - max);
      sum += sum_lanes(y, m);
    }
    const C scale = C(1) / sum;
    for (int64_t s = 0; s < size; s += kChunk) {
      const int64_t m = size - s < kChunk ? size - s : kChunk;
      if (direct_) {
        C* y = out_ptr(base + s);
        for (int64_t i = 0; i < m; ++i) y[i] *= scale;
      } else {
        const C* x = read(base + s, m);
        for (int64_t i = 0; i < m; ++i) buf_[i] = exp_compute(x[i] - max) * scale;
        write(base + s, m);
      }
    }
  }

 private:
  // n input elements from `offset`, as C: in place when the input holds C, else converted.
  const C* read(int64_t offset, int64_t n) {
    if (direct_) return reinterpret_cast<const C*>(src_) + offset;
    load_row<C>(src_ + offset * element_size_, dtype_, 1, n, in_buf_);
    return in_buf_;
  }
  C* out_ptr(int64_t offset) { return reinterpret_cast<C*>(dst_) + offset; }
  void write(int64_t offset, int64_t n) {
    store_row<C>(buf_, n, dtype_, dst_ + offset * element_size_);
  }

  ScalarType dtype_;
  size_t element_size_;
  bool direct_;
  const char* src_;
  char* dst_;
  C in_buf_[kChunk];
  C buf_[kChunk];
  C max_[kChunk];
  C sum_[kChunk];
};

}  // namespace

Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                    Tensor& out) {
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
                        "softmax is not implemented for dtype %s; pass a floating point tensor "
                        "(Half, BFloat16, Float or Double)",
                        to_string(self.scalar_type()));
  const int64_t size = self.dim() == 0 ? 1 : self.size(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t outer = self.numel() / (size * inner);
  dispatch_compute_type<kFloatingTypes>(self.scalar_type(), [&](auto tag) {
    SoftmaxRunner<typename decltype(tag)::type> runner(self, out);
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t base = o * size * inner;
      if (inner == 1) {
        runner.row(base, size);
        continue;
      }
      for (int64_t i = 0; i < inner; i += kChunk) {
        runner.columns(base + i, size, inner, inner - i < kChunk ? inner - i : kChunk);
      }
    }
  });
  return out;
}

}  // namespace kiln::portable::native
