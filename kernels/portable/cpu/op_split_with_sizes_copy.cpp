// split_with_sizes_copy.out: self cut along a dim into pieces of the given sizes, one per out.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self,
                               IntArrayRef split_sizes, int64_t dim, ArrayRef<Tensor> out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, ,
                        "split_with_sizes expects at least a 1-dimensional tensor");
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return;
  const int64_t n = self.size(d);
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, split_sizes[i] >= 0, InvalidArgument, ,
                          "split_with_sizes expects split_sizes have only non-negative entries, "
                          "but got split_sizes=%s",
                          format_shape(split_sizes).text);
    // Each size is at most n when they sum to n; checking so keeps the sum from overflowing.
    KILN_KERNEL_CHECK_MSG(ctx, split_sizes[i] <= n - total, InvalidArgument, ,
                          "split_with_sizes expects split_sizes to sum exactly to %lld (input "
                          "tensor's size at dimension %lld), but got split_sizes=%s",
                          static_cast<long long>(n), static_cast<long long>(d),
                          format_shape(split_sizes).text);
    total += split_sizes[i];
  }
  KILN_KERNEL_CHECK_MSG(ctx, total == n, InvalidArgument, ,
                        "split_with_sizes expects split_sizes to sum exactly to %lld (input "
                        "tensor's size at dimension %lld), but got split_sizes=%s",
                        static_cast<long long>(n), static_cast<long long>(d),
                        format_shape(split_sizes).text);
  KILN_KERNEL_CHECK_MSG(ctx, out.size() == split_sizes.size(), InvalidArgument, ,
                        "split_with_sizes_copy_out expected an out= argument of size %zu, got "
                        "size %zu",
                        split_sizes.size(), out.size());
  split_into(ctx, self, d, out, [&](size_t i) { return split_sizes[i]; });
}

}  // namespace kiln::portable::native
