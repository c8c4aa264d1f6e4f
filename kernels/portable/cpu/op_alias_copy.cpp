// alias_copy.out: a copy of self (same dtype and shape).
#include <optional>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& alias_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return clone_into(ctx, self, std::nullopt, out);
}

}  // namespace kiln::portable::native
