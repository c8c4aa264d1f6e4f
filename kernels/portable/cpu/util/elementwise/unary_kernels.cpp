// The argument checks the unary kernel families share.
#include "kernels/portable/cpu/util/elementwise/unary_kernels.h"

namespace kiln::portable {

bool check_unary_tensors(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& out) {
  return check_tensor(ctx, self, "self") && check_tensor(ctx, out, "out");
}

bool prepare_same_dtype(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return check_unary_tensors(ctx, self, out) && check_out_dtype_is(ctx, out, self.scalar_type()) &&
         resize_or_fail(ctx, out, self.sizes());
}

bool prepare_activation(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const char* op,
                        bool floating_only) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return false;
  if (floating_only && !is_floating_type(self.scalar_type())) {
    ctx.fail(Error::InvalidType,
             "%s is not implemented for dtype %s; pass a floating point tensor (Half, BFloat16, "
             "Float or Double)",
             op, to_string(self.scalar_type()));
    return false;
  }
  return check_out_dtype_is(ctx, out, self.scalar_type()) && resize_or_fail(ctx, out, self.sizes());
}

}  // namespace kiln::portable
