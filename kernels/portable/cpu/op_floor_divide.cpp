// floor_divide.out: self / other rounded toward negative infinity, in the promoted dtype (no
// promotion to Float); an integer division by zero is an error, as in ATen.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& floor_divide_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                         Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  return rounding_divide(ctx, "floor_divide", ElementwiseInput::of(self),
                         ElementwiseInput::of(other), common, /*trunc=*/false, out);
}

}  // namespace kiln::portable::native
