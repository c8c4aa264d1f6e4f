// scatter's and scatter_add's shared checks and index walk.
#include "kernels/portable/cpu/util/index/scatter.h"

#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/dtypes.h"
#include "kernels/portable/cpu/util/elementwise/arithmetic.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "kernels/portable/cpu/util/shape/copy.h"

namespace kiln::portable {
namespace {

// Rank and size checks shared by both overloads (src is null for the value overload); false after
// ctx.fail. Like ATen, an empty index skips them.
bool check_scatter_shapes(KernelRuntimeContext& ctx, const Tensor& self, int64_t d,
                          const Tensor& index, const Tensor* src) {
  const auto size_of = [](const Tensor& t, int64_t i) -> int64_t {
    return t.dim() > 0 ? t.size(i) : 1;
  };
  const int64_t rank = self.dim() > 0 ? self.dim() : 1;
  const int64_t index_rank = index.dim() > 0 ? index.dim() : 1;
  KILN_KERNEL_CHECK_MSG(ctx, rank == index_rank, InvalidArgument, false,
                        "Index tensor must have the same number of dimensions as self tensor "
                        "(index %s, self %s)",
                        format_shape(index.sizes()).text, format_shape(self.sizes()).text);
  if (src != nullptr) {
    const int64_t src_rank = src->dim() > 0 ? src->dim() : 1;
    KILN_KERNEL_CHECK_MSG(ctx, src_rank == index_rank, InvalidArgument, false,
                          "Index tensor must have the same number of dimensions as src tensor "
                          "(index %s, src %s)",
                          format_shape(index.sizes()).text, format_shape(src->sizes()).text);
  }
  for (int64_t i = 0; i < rank; ++i) {
    const bool fits_self = i == d || size_of(index, i) <= size_of(self, i);
    const bool fits_src = src == nullptr || size_of(index, i) <= size_of(*src, i);
    KILN_KERNEL_CHECK_MSG(ctx, fits_self && fits_src, InvalidArgument, false,
                          "Expected index %s to be no larger than self %s apart from dimension "
                          "%lld%s%s",
                          format_shape(index.sizes()).text, format_shape(self.sizes()).text,
                          static_cast<long long>(d),
                          src ? " and to be no larger size than src " : "",
                          src ? format_shape(src->sizes()).text : "");
  }
  return true;
}

// a (+ or *) b in dtype T as ATen's scatter reductions compute it: Bool is or / and, integers
// wrap, Half and BFloat16 round from float.
template <typename T>
inline T combine(T a, T b, ScatterReduce mode) {
  if constexpr (std::is_same_v<T, bool>) {
    return mode == ScatterReduce::kAdd ? (a || b) : (a && b);
  } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    const float x = static_cast<float>(a);
    const float y = static_cast<float>(b);
    return T(mode == ScatterReduce::kAdd ? x + y : x * y);
  } else {
    return mode == ScatterReduce::kAdd ? wrapping_add(a, b) : wrapping_mul(a, b);
  }
}

}  // namespace

bool check_scatter_layouts(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& index,
                           const Tensor* src, const Tensor& out) {
  return check_tensor(ctx, self, "self") && check_default_dim_order(ctx, out, "out") &&
         check_default_dim_order(ctx, index, "index") &&
         (src == nullptr || check_default_dim_order(ctx, *src, "src"));
}

Tensor& scatter_into(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                     const Tensor& index, const Tensor* src, const void* value, ScatterReduce mode,
                     Tensor& out) {
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return out;
  const bool empty = index.numel() == 0;
  if (!empty && !check_index_dtype(ctx, index, "scatter", "index")) return out;
  if (src != nullptr) {
    KILN_KERNEL_CHECK_MSG(ctx, src->scalar_type() == self.scalar_type(), InvalidArgument, out,
                          "scatter(): Expected self.dtype to be equal to src.dtype (got %s and %s)",
                          to_string(self.scalar_type()), to_string(src->scalar_type()));
  }
  if (!empty && !check_scatter_shapes(ctx, self, d, index, src)) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  copy_bytes(ctx, self, out);
  if (empty) return out;
  int64_t out_strides[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit] = {};
  const size_t rank = nonempty_strides(self.sizes(), out_strides);
  if (src != nullptr) nonempty_strides(src->sizes(), src_strides);
  const int64_t dim_size = self.dim() > 0 ? self.size(d) : 1;
  const int64_t dim_stride = out_strides[d];
  const IndexReader reader = IndexReader::of(index);
  // Calls put(target, source) for every element of src (or the value) with its target in out;
  // E is the element type named by tag.
  const auto scatter = [&](auto* tag, auto&& put) {
    using E = std::remove_pointer_t<decltype(tag)>;
    const E* from = src != nullptr ? src->const_data_ptr<E>() : static_cast<const E*>(value);
    E* dst = out.mutable_data_ptr<E>();
    walk_index(index.sizes(), rank, out_strides, src_strides, static_cast<size_t>(d),
               [&](int64_t i, int64_t out_offset, int64_t src_offset) {
                 int64_t v = 0;
                 if (!check_index(ctx, reader[i], dim_size, d, false, &v)) return false;
                 put(dst[out_offset + v * dim_stride], from[src_offset]);
                 return true;
               });
  };
  if (mode == ScatterReduce::kAssign) {
    // Assignment moves bits: one loop per element width.
    dispatch_by_width(self.element_size(), [&](auto* tag) {
      scatter(tag, [](auto& target, auto source) { target = source; });
    });
    return out;
  }
  dispatch_element_type(self.scalar_type(), [&](auto* tag) {
    scatter(tag, [mode](auto& target, auto source) { target = combine(target, source, mode); });
  });
  return out;
}

}  // namespace kiln::portable
