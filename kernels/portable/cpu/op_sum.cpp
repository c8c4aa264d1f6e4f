// sum.IntList_out: sums self over dims into out, in out's dtype (which `dtype` must match).
#include <type_traits>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/convert.h"
#include "kernels/portable/cpu/util/dtype_util.h"
#include "kernels/portable/cpu/util/math.h"
#include "kernels/portable/cpu/util/reduce.h"
#include "kernels/portable/cpu/util/vec_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

template <typename T>
void nonzero_typed(const T* src, int64_t n, int64_t* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = convert_value<bool>(src[i]) ? 1 : 0;
}

// 1 where src[i] is nonzero (NaN counts as nonzero), else 0: a Bool sum casts each element.
void load_row_nonzero(const void* src, ScalarType src_type, int64_t n, int64_t* dst) {
#define KILN_NONZERO_CASE(cpp, name)                     \
  case ScalarType::name:                                 \
    nonzero_typed(static_cast<const cpp*>(src), n, dst); \
    return;
  switch (src_type) {
    KILN_FORALL_SCALAR_TYPES(KILN_NONZERO_CASE)
    default:
      return;
  }
#undef KILN_NONZERO_CASE
}

constexpr int64_t kChunk = 256;         // elements converted through a buffer at a time
constexpr int64_t kDirectBlock = 1024;  // elements summed in place at a time

// Sums in the compute type C of the sum dtype: chunks of float add up in float lanes and the
// chunk totals in double, so long sums stay accurate; integers wrap in int64 (as the sum dtype's
// own arithmetic would, modulo its width).
template <typename C>
class SumRunner {
 public:
  using Total = std::conditional_t<std::is_integral_v<C>, int64_t, double>;

  SumRunner(const Tensor& in, ScalarType sum_type, Tensor& out)
      : in_type_(in.scalar_type()),
        sum_type_(sum_type),
        in_size_(in.element_size()),
        out_size_(out.element_size()),
        direct_(in_type_ == sum_type && in_type_ == CppToScalarType<C>::value),
        src_(static_cast<const char*>(in.const_data_ptr())),
        dst_(static_cast<char*>(out.mutable_data_ptr())) {}

  // Each output sums whole contiguous rows: one per reduced offset.
  void reduce_rows(const ReducePlan& plan) {
    int64_t pending = 0;  // outputs in totals_ not yet stored
    int64_t out_index = 0;
    for_each_offset(plan.kept_sizes, plan.kept_strides, plan.kept_dim, [&](int64_t base) {
      Total total = 0;
      for_each_offset(plan.reduced_sizes, plan.reduced_strides, plan.reduced_dim,
                      [&](int64_t offset) {
                        // Blocks of C sums (kept short for float accuracy) add up in Total.
                        const int64_t block = direct_ ? kDirectBlock : kChunk;
                        for (int64_t s = 0; s < plan.row_size; s += block) {
                          const int64_t m = plan.row_size - s < block ? plan.row_size - s : block;
                          const Total part = sum_lanes(read(base + offset + s, m), m);
                          total = wrapping_add(total, part);
                        }
                      });
      totals_[pending++] = total;
      if (pending == kChunk) {
        store_row<Total>(totals_, pending, sum_type_, dst_ + out_index * out_size_);
        out_index += pending;
        pending = 0;
      }
    });
    store_row<Total>(totals_, pending, sum_type_, dst_ + out_index * out_size_);
  }

  // Outputs come a contiguous run at a time, adding the matching run of each reduced offset.
  void reduce_columns(const ReducePlan& plan) {
    int64_t out_index = 0;
    for_each_offset(plan.kept_sizes, plan.kept_strides, plan.kept_dim, [&](int64_t base) {
      for (int64_t s = 0; s < plan.row_size; s += kChunk) {
        const int64_t m = plan.row_size - s < kChunk ? plan.row_size - s : kChunk;
        for (int64_t i = 0; i < m; ++i) totals_[i] = 0;
        for_each_offset(plan.reduced_sizes, plan.reduced_strides, plan.reduced_dim,
                        [&](int64_t offset) {
                          const C* x = read(base + offset + s, m);
                          for (int64_t i = 0; i < m; ++i) {
                            totals_[i] = wrapping_add(totals_[i], static_cast<Total>(x[i]));
                          }
                        });
        store_row<Total>(totals_, m, sum_type_, dst_ + (out_index + s) * out_size_);
      }
      out_index += plan.row_size;
    });
  }

 private:
  // n input elements from `offset` as values of the sum dtype, held in C: converted to the sum
  // dtype first, as ATen casts the input before summing.
  const C* read(int64_t offset, int64_t n) {
    const char* src = src_ + offset * in_size_;
    if (direct_) return reinterpret_cast<const C*>(src);
    if constexpr (std::is_integral_v<C>) {
      if (sum_type_ == ScalarType::Bool) {
        load_row_nonzero(src, in_type_, n, buf_);
        return buf_;
      }
    }
    load_row_as<C>(src, in_type_, 1, n, sum_type_, buf_);
    return buf_;
  }

  ScalarType in_type_;
  ScalarType sum_type_;
  size_t in_size_;
  size_t out_size_;
  bool direct_;
  const char* src_;
  char* dst_;
  C buf_[kChunk];
  Total totals_[kChunk];
};

}  // namespace

Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                    bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  // The out variant sums in `dtype` when given (out must match it), else in out's dtype.
  const ScalarType sum_type = dtype.value_or(out.scalar_type());
  if (!check_supported_dtype(ctx, sum_type, "the sum dtype")) return out;
  if (!check_out_dtype_is(ctx, out, sum_type)) return out;
  DimMask mask = 0;
  if (!make_dim_mask(ctx, dim, self.dim(), &mask)) return out;
  SizesType out_sizes[kTensorDimensionLimit];
  const size_t out_dim = reduced_shape(self.sizes(), mask, keepdim, out_sizes);
  if (!resize_or_fail(ctx, out, {out_sizes, out_dim})) return out;
  if (out.numel() == 0) return out;
  dispatch_compute_type(sum_type, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if (self.numel() == 0) {  // summing nothing gives zeros
      const C zeros[kChunk] = {};
      char* dst = static_cast<char*>(out.mutable_data_ptr());
      for (int64_t s = 0; s < out.numel(); s += kChunk) {
        const int64_t m = out.numel() - s < kChunk ? out.numel() - s : kChunk;
        store_row<C>(zeros, m, sum_type, dst + s * out.element_size());
      }
      return;
    }
    ReducePlan plan;
    make_reduce_plan(self.sizes(), mask, &plan);
    SumRunner<C> runner(self, sum_type, out);
    if (plan.row_reduced) {
      runner.reduce_rows(plan);
    } else {
      runner.reduce_columns(plan);
    }
  });
  return out;
}

}  // namespace kiln::portable::native
