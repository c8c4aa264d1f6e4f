// add.out and add.Scalar_out: out = self + alpha * other.
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                const Scalar& alpha, Tensor& out) {
  return add_sub_out</*kSubtract=*/false>(ctx, self, other, alpha, out);
}

Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       const Scalar& alpha, Tensor& out) {
  return add_sub_out</*kSubtract=*/false>(ctx, self, other, alpha, out);
}

}  // namespace kiln::portable::native
