// clone.out: a copy of self (same dtype and shape); memory_format is validated as ATen does.
#include <optional>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& clone_out(KernelRuntimeContext& ctx, const Tensor& self,
                  std::optional<MemoryFormat> memory_format, Tensor& out) {
  return clone_into(ctx, self, memory_format, out);
}

}  // namespace kiln::portable::native
