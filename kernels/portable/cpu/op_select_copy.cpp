// select_copy.int_out: one index of a dim of self, copied out (the dim is dropped).
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& select_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                            int64_t index, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  if (!wrap_sliced_dim(ctx, "select", dim, rank, &d)) return out;
  const int64_t n = self.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, index >= -n && index < n, InvalidArgument, out,
                        "select(): index %lld out of range for tensor of size %s at dimension "
                        "%lld",
                        static_cast<long long>(index), format_shape(self.sizes()).text,
                        static_cast<long long>(dim));
  if (index < 0) index += n;
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit];
  int64_t m = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == d) continue;
    sizes[m] = self.size(i);
    src_strides[m] = strides[i];
    ++m;
  }
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(m)})) return out;
  copy_strided_to_out(ctx, self, sizes, src_strides, m, index * strides[d], out);
  return out;
}

}  // namespace kiln::portable::native
