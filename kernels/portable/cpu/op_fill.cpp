// fill.Scalar_out and fill.Tensor_out: out, of self's dtype and shape, filled with one value. A
// Scalar value is range-checked as fill_ checks it; a 0-dim tensor value converts as copy_ does.
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "kernels/portable/cpu/util/shape/fill.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& fill_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& value,
                        Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_out_dtype_is(ctx, out, self.scalar_type())) {
    return out;
  }
  return fill_with(ctx, self.sizes(), value, out);
}

Tensor& fill_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& value,
                        Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, value, "value") ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, value.dim() == 0, InvalidArgument, out,
                        "fill_ only supports 0-dimension value tensor but got tensor with %lld "
                        "dimensions; pass a 0-dim value (value.reshape(()) for one element)",
                        static_cast<long long>(value.dim()));
  if (!check_out_dtype_is(ctx, out, self.scalar_type()) ||
      !resize_or_fail(ctx, out, self.sizes())) {
    return out;
  }
  alignas(8) unsigned char element[8];
  convert_copy(element, out.scalar_type(), value.const_data_ptr(), value.scalar_type(), 1);
  fill_elements(out.mutable_data_ptr(), element, out.element_size(), out.numel());
  return out;
}

}  // namespace kiln::portable::native
