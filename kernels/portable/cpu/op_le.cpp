// le.Tensor_out and le.Scalar_out: self <= other elementwise, computed in the promoted dtype;
// out is Bool by default and may be of any dtype (it receives 0 or 1).
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& le_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                      Tensor& out) {
  return binary_predicate_out<Predicate::kLe>(ctx, self, other, out);
}

Tensor& le_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                      Tensor& out) {
  return binary_predicate_out<Predicate::kLe>(ctx, self, other, out);
}

}  // namespace kiln::portable::native
