// expand_copy.out: self broadcast to a larger shape, as a copy with 0 strides.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& expand_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size,
                        bool implicit, Tensor& out) {
  (void)implicit;  // only marks expands the tracer inserted; the values are the same
  const int64_t rank = self.dim();
  const int64_t ndim = static_cast<int64_t>(size.size());
  KILN_KERNEL_CHECK_MSG(ctx, ndim >= rank, InvalidArgument, out,
                        "expand(%s, size=%s): the number of sizes provided (%lld) must be "
                        "greater or equal to the number of dimensions in the tensor (%lld)",
                        format_shape(self.sizes()).text, format_shape(size).text,
                        static_cast<long long>(ndim), static_cast<long long>(rank));
  if (!check_rank_limit(ctx, size.size(), "size")) return out;
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit];
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t d = i - (ndim - rank);
    int64_t target = size[i];
    if (d < 0) {
      KILN_KERNEL_CHECK_MSG(ctx, target >= 0, InvalidArgument, out,
                            "The expanded size of the tensor (%lld) isn't allowed in a leading, "
                            "non-existing dimension %lld",
                            static_cast<long long>(target), static_cast<long long>(i));
      src_strides[i] = 0;
    } else {
      const int64_t have = self.size(d);
      if (target == -1) target = have;
      KILN_KERNEL_CHECK_MSG(ctx, have == target || have == 1, InvalidArgument, out,
                            "The expanded size of the tensor (%lld) must match the existing size "
                            "(%lld) at non-singleton dimension %lld.  Target sizes: %s.  Tensor "
                            "sizes: %s",
                            static_cast<long long>(target), static_cast<long long>(have),
                            static_cast<long long>(i), format_shape(size).text,
                            format_shape(self.sizes()).text);
      KILN_KERNEL_CHECK_MSG(ctx, target >= 0, InvalidArgument, out,
                            "Trying to create tensor with negative dimension %lld: %s",
                            static_cast<long long>(target), format_shape(size).text);
      src_strides[i] = have == target ? strides[d] : 0;
    }
    sizes[i] = target;
  }
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(ndim)})) return out;
  copy_strided_to_out(ctx, self, sizes, src_strides, ndim, 0, out);
  return out;
}

}  // namespace kiln::portable::native
