// argmax.out and argmin.out: the first index of the largest (smallest) value, NaN winning.
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/reduce_select.h"

namespace kiln::portable::native {
namespace {

Tensor& arg_max_min(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim,
                    bool keepdim, bool max, Tensor& out) {
  const char* op = max ? "argmax" : "argmin";
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidType, out,
                        "%s(): does not support bool input; convert it to an integer dtype", op);
  if (!check_out_dtype_is(ctx, out, ScalarType::Long)) return out;
  DimMask mask = 0;
  if (dim.has_value()) {
    const int64_t d = *dim;
    if (!make_dim_mask(ctx, IntArrayRef(&d, 1), self.dim(), &mask)) return out;
  } else if (!make_dim_mask(ctx, std::nullopt, self.dim(), &mask)) {
    return out;
  }
  if (!check_nonempty_reduction(ctx, self, mask, !dim.has_value(), op)) return out;
  // Without a dim the input is flattened: keepdim keeps every dim as 1.
  SizesType out_sizes[kTensorDimensionLimit];
  const size_t out_dim = reduced_shape(self.sizes(), mask, keepdim, out_sizes);
  if (!resize_or_fail(ctx, out, {out_sizes, out_dim})) return out;
  SelectOptions options;
  options.max = max;
  options.indices = &out;
  select_reduce(self, mask, options);
  return out;
}

}  // namespace

Tensor& argmax_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim,
                   bool keepdim, Tensor& out) {
  return arg_max_min(ctx, self, dim, keepdim, /*max=*/true, out);
}

Tensor& argmin_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim,
                   bool keepdim, Tensor& out) {
  return arg_max_min(ctx, self, dim, keepdim, /*max=*/false, out);
}

}  // namespace kiln::portable::native
