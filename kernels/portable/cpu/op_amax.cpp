// amax.out and amin.out: the largest (smallest) value over dims, NaN winning, in self's dtype.
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/reduce_select.h"

namespace kiln::portable::native {
namespace {

Tensor& amax_amin(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                  bool max, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, out,
                        "Expected the dtype for input and out to match, but got %s for input's "
                        "dtype and %s for out's dtype; pass an out tensor of dtype %s",
                        to_string(self.scalar_type()), to_string(out.scalar_type()),
                        to_string(self.scalar_type()));
  DimMask mask = 0;
  if (!make_dim_mask(ctx, dim, self.dim(), &mask)) return out;
  if (!check_nonempty_reduction(ctx, self, mask, dim.empty(), max ? "amax" : "amin")) return out;
  SizesType out_sizes[kTensorDimensionLimit];
  const size_t out_dim = reduced_shape(self.sizes(), mask, keepdim, out_sizes);
  if (!resize_or_fail(ctx, out, {out_sizes, out_dim})) return out;
  SelectOptions options;
  options.max = max;
  options.values = &out;
  select_reduce(self, mask, options);
  return out;
}

}  // namespace

Tensor& amax_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  return amax_amin(ctx, self, dim, keepdim, /*max=*/true, out);
}

Tensor& amin_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef dim, bool keepdim,
                 Tensor& out) {
  return amax_amin(ctx, self, dim, keepdim, /*max=*/false, out);
}

}  // namespace kiln::portable::native
