// squeeze_copy.out, .dim_out and .dims_out: self's bytes under its shape without size-1 dims
// (all of them, or those of the given dims).
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// self's sizes without the size-1 dims that `squeeze` marks.
Tensor& squeeze_marked(KernelRuntimeContext& ctx, const Tensor& self, const bool* squeeze,
                       Tensor& out) {
  SizesType sizes[kTensorDimensionLimit];
  int64_t m = 0;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (!(squeeze[i] && self.size(i) == 1)) sizes[m++] = self.size(i);
  }
  return reshaped_copy(ctx, self, sizes, m, out);
}

}  // namespace

Tensor& squeeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  bool squeeze[kTensorDimensionLimit];
  for (auto& s : squeeze) s = true;
  return squeeze_marked(ctx, self, squeeze, out);
}

Tensor& squeeze_copy_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                             Tensor& out) {
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return out;
  bool squeeze[kTensorDimensionLimit] = {};
  squeeze[d] = true;
  return squeeze_marked(ctx, self, squeeze, out);
}

Tensor& squeeze_copy_dims_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim,
                              Tensor& out) {
  bool squeeze[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dim.size(); ++i) {
    int64_t d = 0;
    if (!wrap_dim(ctx, dim[i], self.dim(), &d)) return out;
    KILN_KERNEL_CHECK_MSG(ctx, !squeeze[d], InvalidArgument, out,
                          "dim %lld appears multiple times in the list of dims",
                          static_cast<long long>(d));
    squeeze[d] = true;
  }
  return squeeze_marked(ctx, self, squeeze, out);
}

}  // namespace kiln::portable::native
