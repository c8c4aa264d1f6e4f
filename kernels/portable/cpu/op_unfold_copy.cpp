// unfold_copy.out: every window of `size` elements along a dim, `step` apart, copied out; the
// windows replace the dim and their elements form a new last dim.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& unfold_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dimension,
                        int64_t size, int64_t step, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  if (!wrap_dim(ctx, dimension, rank, &d)) return out;
  // A 0-dim tensor unfolds as one element.
  const int64_t n = rank == 0 ? 1 : self.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, size <= n, InvalidArgument, out,
                        "maximum size for tensor at dimension %lld is %lld but size is %lld",
                        static_cast<long long>(d), static_cast<long long>(n),
                        static_cast<long long>(size));
  KILN_KERNEL_CHECK_MSG(ctx, size >= 0, InvalidArgument, out, "size is %lld but must be >= 0",
                        static_cast<long long>(size));
  KILN_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out, "step is %lld but must be > 0",
                        static_cast<long long>(step));
  KILN_KERNEL_CHECK_MSG(ctx, rank < static_cast<int64_t>(kTensorDimensionLimit), InvalidArgument,
                        out, "unfold adds a dim to self's %lld; tensors have at most %zu",
                        static_cast<long long>(rank), kTensorDimensionLimit);
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit];
  for (int64_t j = 0; j < rank; ++j) {
    sizes[j] = j == d ? (n - size) / step + 1 : self.size(j);
    src_strides[j] = j == d ? strides[j] * step : strides[j];
  }
  sizes[rank] = size;
  src_strides[rank] = rank == 0 ? 1 : strides[d];
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(rank + 1)})) return out;
  copy_strided_to_out(ctx, self, sizes, src_strides, rank + 1, 0, out);
  return out;
}

}  // namespace kiln::portable::native
