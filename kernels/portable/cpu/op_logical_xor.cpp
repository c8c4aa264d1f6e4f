// logical_xor.out: the truth values of self and other (nonzero is true) combined by xor;
// out is Bool by default and may be of any dtype (it receives 0 or 1).
#include "kernels/portable/cpu/util/elementwise/binary_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& logical_xor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return binary_predicate_out<Predicate::kXor>(ctx, self, other, out);
}

}  // namespace kiln::portable::native
