// flip.out: self with the given dims reversed, as a strided copy.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& flip_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dims, Tensor& out) {
  const int64_t rank = self.dim();
  bool flipped[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = 0;
    if (!wrap_dim(ctx, dims[i], rank, &d)) return out;
    KILN_KERNEL_CHECK_MSG(ctx, !flipped[d], InvalidArgument, out,
                          "dim %lld appears multiple times in the list of dims",
                          static_cast<long long>(d));
    flipped[d] = true;
  }
  if (!prepare_copy_out(ctx, self, out, self.sizes())) return out;
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  int64_t sizes[kTensorDimensionLimit];
  int64_t offset = 0;
  for (int64_t i = 0; i < rank; ++i) {
    sizes[i] = self.size(i);
    if (flipped[i] && sizes[i] > 0) {
      offset += (sizes[i] - 1) * strides[i];
      strides[i] = -strides[i];
    }
  }
  copy_strided_to_out(ctx, self, sizes, strides, rank, offset, out);
  return out;
}

}  // namespace kiln::portable::native
