// select_scatter.out: a copy of self with one index of a dim replaced by src (the dim dropped in
// src), converted to self's dtype.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "kernels/portable/cpu/util/shape/scatter_part.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& select_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src,
                           int64_t dim, int64_t index, Tensor& out) {
  if (!check_tensor(ctx, self, "self")) return out;
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
  TensorPart part;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == d) continue;
    part.sizes[part.ndim] = self.size(i);
    part.strides[part.ndim] = strides[i];
    ++part.ndim;
  }
  part.offset = index * strides[d];
  return scatter_part(ctx, self, src, part, out);
}

}  // namespace kiln::portable::native
