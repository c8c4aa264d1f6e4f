// cumsum.out: running sums along a dim, each element first cast to the op dtype (`dtype`, else
// out's); floating sums run in double (as ATen's CPU accumulate type does), integers wrap.
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/reduce/plan.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable::native {
namespace {

constexpr int64_t kChunk = 256;

// Running sums of n contiguous T values into y, each value widened into Total and each sum
// rounded back to T inline (the dtypes that need no conversion pass).
template <typename T, typename Total>
void scan_row(const T* x, T* y, int64_t n) {
  Total total = 0;
  for (int64_t i = 0; i < n; ++i) {
    total = wrapping_add(total, static_cast<Total>(x[i]));
    y[i] = static_cast<T>(total);
  }
}

// totals[w] += x[w], y[w] = totals[w] rounded to T: one step of `width` neighbouring scans.
template <typename T, typename Total>
KILN_HOT_LOOP void scan_step(Total* totals, const T* x, T* y, int64_t width) {
  for (int64_t w = 0; w < width; ++w) {
    totals[w] = wrapping_add(totals[w], static_cast<Total>(x[w]));
    y[w] = static_cast<T>(totals[w]);
  }
}

// Calls f(TypeTag<T>{}) when dtype t, the input's and the op's, is one the scans read and write
// in place (Float and Double summing in double, Long and Int in int64) and returns true.
template <typename Total, typename F>
bool dispatch_in_place(ScalarType t, F&& f) {
  const auto take = [&](ScalarType type, auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (dtype_selected(CppToScalarType<T>::value) &&
                  std::is_integral_v<T> == std::is_integral_v<Total>) {
      if (t == type) return f(tag), true;
    }
    return false;
  };
  return take(ScalarType::Float, TypeTag<float>{}) || take(ScalarType::Double, TypeTag<double>{}) ||
         take(ScalarType::Long, TypeTag<int64_t>{}) || take(ScalarType::Int, TypeTag<int32_t>{});
}

template <typename Total>
class CumsumRunner {
 public:
  CumsumRunner(const Tensor& in, ScalarType op_type, Tensor& out)
      : in_type_(in.scalar_type()),
        op_type_(op_type),
        in_size_(in.element_size()),
        out_size_(out.element_size()),
        src_(static_cast<const char*>(in.const_data_ptr())),
        dst_(static_cast<char*>(out.mutable_data_ptr())),
        in_place_(in_type_ == op_type_) {}

  // One contiguous slice of `size` elements from `base`.
  void row(int64_t base, int64_t size) {
    if (in_place_ && dispatch_in_place<Total>(in_type_, [&](auto tag) {
          using T = typename decltype(tag)::type;
          scan_row<T, Total>(typed<T>(src_) + base, typed<T>(dst_) + base, size);
        })) {
      return;
    }
    Total total = 0;
    for (int64_t s = 0; s < size; s += kChunk) {
      const int64_t m = size - s < kChunk ? size - s : kChunk;
      load(base + s, m);
      for (int64_t i = 0; i < m; ++i) {
        total = wrapping_add(total, buf_[i]);
        buf_[i] = total;
      }
      store(base + s, m);
    }
  }

  // `width` <= kChunk neighbouring slices: slice w runs over x[base + d * stride + w].
  void columns(int64_t base, int64_t size, int64_t stride, int64_t width) {
    for (int64_t w = 0; w < width; ++w) totals_[w] = 0;
    if (in_place_ && dispatch_in_place<Total>(in_type_, [&](auto tag) {
          using T = typename decltype(tag)::type;
          for (int64_t d = 0; d < size; ++d) {
            const int64_t offset = base + d * stride;
            scan_step<T, Total>(totals_, typed<T>(src_) + offset, typed<T>(dst_) + offset, width);
          }
        })) {
      return;
    }
    for (int64_t d = 0; d < size; ++d) {
      const int64_t offset = base + d * stride;
      load(offset, width);
      for (int64_t w = 0; w < width; ++w) {
        totals_[w] = wrapping_add(totals_[w], buf_[w]);
        buf_[w] = totals_[w];
      }
      store(offset, width);
    }
  }

 private:
  template <typename T>
  static T* typed(char* data) {
    return reinterpret_cast<T*>(data);
  }
  template <typename T>
  static const T* typed(const char* data) {
    return reinterpret_cast<const T*>(data);
  }

  void load(int64_t offset, int64_t n) {
    load_row_as<Total>(src_ + offset * in_size_, in_type_, 1, n, op_type_, buf_);
  }
  // Each running sum is rounded to the op dtype, which is out's dtype.
  void store(int64_t offset, int64_t n) {
    store_row<Total>(buf_, n, op_type_, dst_ + offset * out_size_);
  }

  ScalarType in_type_;
  ScalarType op_type_;
  size_t in_size_;
  size_t out_size_;
  const char* src_;
  char* dst_;
  bool in_place_;
  Total buf_[kChunk];
  Total totals_[kChunk];
};

}  // namespace

Tensor& cumsum_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                   std::optional<ScalarType> dtype, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType op_type = dtype.value_or(out.scalar_type());
  if (!check_supported_dtype(ctx, op_type, "dtype")) return out;
  if (!check_out_dtype_is(ctx, out, op_type)) return out;
  int64_t axis = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &axis)) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  if (self.numel() == 0) return out;
  // ATen copies a 0-dim input without running the kernel, which has no Bool version.
  KILN_KERNEL_CHECK_MSG(ctx, op_type != ScalarType::Bool || self.dim() == 0, InvalidType, out,
                        "\"cumsum_out_cpu\" not implemented for 'Bool'; pass an integer or "
                        "floating dtype");
  if (op_type == ScalarType::Bool) {
    int64_t truth = 0;
    load_row_nonzero(self.const_data_ptr(), self.scalar_type(), 1, 1, &truth);
    store_row<int64_t>(&truth, 1, ScalarType::Bool, out.mutable_data_ptr());
    return out;
  }
  const int64_t size = self.dim() == 0 ? 1 : self.size(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < self.dim(); ++d) inner *= self.size(d);
  const int64_t outer = self.numel() / (size * inner);
  dispatch_compute_type(op_type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    using Total = std::conditional_t<std::is_integral_v<C>, int64_t, double>;
    CumsumRunner<Total> runner(self, op_type, out);
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
