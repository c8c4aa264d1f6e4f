// clone, alias_copy, detach_copy: copy self into out (same dtype and shape); clone validates
// memory_format as ATen does.
#include <optional>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/copy.h"
#include "runtime/core/tensor_options.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& clone_out(KernelRuntimeContext& ctx, const Tensor& self,
                  std::optional<MemoryFormat> memory_format, Tensor& out) {
  if (!check_default_dim_order(ctx, self, "self") || !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  if (!check_memory_format(ctx, memory_format, self)) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  copy_bytes(self, out);
  return out;
}

Tensor& alias_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return clone_out(ctx, self, std::nullopt, out);
}

Tensor& detach_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return clone_out(ctx, self, std::nullopt, out);
}

}  // namespace kiln::portable::native
