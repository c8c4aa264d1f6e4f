// squeeze_copy and unsqueeze_copy: self's bytes under a shape with size-1 dims removed or added.
#include <cstdint>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// out = self's elements with shape `sizes`, which has self's element count.
Tensor& reshaped_copy(KernelRuntimeContext& ctx, const Tensor& self, const SizesType* sizes,
                      int64_t ndim, Tensor& out) {
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(ndim)})) return out;
  copy_bytes(self, out);
  return out;
}

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

Tensor& unsqueeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                           Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, rank + 1, &d)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, rank < static_cast<int64_t>(kTensorDimensionLimit), InvalidArgument,
                        out, "unsqueeze of a %lld-dim tensor exceeds %zu dims",
                        static_cast<long long>(rank), kTensorDimensionLimit);
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t i = 0, j = 0; i <= rank; ++i) sizes[i] = i == d ? 1 : self.size(j++);
  return reshaped_copy(ctx, self, sizes, rank + 1, out);
}

}  // namespace kiln::portable::native
