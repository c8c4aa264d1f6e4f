// gather.out: out[i][j] = self[index[i][j]][j] (for dim 0), the index tensor shaping the result.
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& gather_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                   bool /*sparse_grad: only changes the gradient's layout*/, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, out, "out") ||
      !check_default_dim_order(ctx, index, "index")) {
    return out;
  }
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  const bool empty = index.numel() == 0;
  if (!empty && !check_index_dtype(ctx, index, "gather", "index")) return out;
  int64_t self_strides[kTensorDimensionLimit];
  int64_t out_strides[kTensorDimensionLimit];
  const size_t rank = nonempty_strides(self.sizes(), self_strides);
  const size_t index_rank = nonempty_strides(index.sizes(), out_strides);
  if (!empty) {
    KILN_KERNEL_CHECK_MSG(ctx, rank == index_rank, InvalidArgument, out,
                          "Index tensor must have the same number of dimensions as input tensor "
                          "(index %s, self %s)",
                          format_shape(index.sizes()).text, format_shape(self.sizes()).text);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t index_size = index.dim() > 0 ? index.size(i) : 1;
      const int64_t self_size = self.dim() > 0 ? self.size(i) : 1;
      KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(i) == d || index_size <= self_size,
                            InvalidArgument, out,
                            "Size does not match at dimension %zu expected index %s to be no "
                            "larger than self %s apart from dimension %lld",
                            i, format_shape(index.sizes()).text, format_shape(self.sizes()).text,
                            static_cast<long long>(d));
    }
  }
  if (!resize_or_fail(ctx, out, index.sizes())) return out;
  if (empty) return out;
  const int64_t dim_size = self.dim() > 0 ? self.size(d) : 1;
  const int64_t dim_stride = self_strides[d];
  const IndexReader reader = IndexReader::of(index);
  dispatch_by_width(self.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    const U* src = self.const_data_ptr<U>();
    U* dst = out.mutable_data_ptr<U>();
    walk_index(index.sizes(), rank, self_strides, out_strides, static_cast<size_t>(d),
               [&](int64_t i, int64_t self_offset, int64_t) {
                 int64_t v = 0;
                 if (!check_index(ctx, reader[i], dim_size, d, false, &v)) return false;
                 dst[i] = src[self_offset + v * dim_stride];
                 return true;
               });
  });
  return out;
}

}  // namespace kiln::portable::native
