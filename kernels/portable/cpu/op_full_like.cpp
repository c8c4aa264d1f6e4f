// full_like.out: out (of its own dtype) of self's shape filled with fill_value; memory_format is
// validated as ATen does.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/fill.h"
#include "runtime/core/tensor_options.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& full_like_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& fill_value,
                      std::optional<MemoryFormat> memory_format, Tensor& out) {
  if (!check_memory_format(ctx, memory_format, self)) return out;
  return fill_with(ctx, self.sizes(), fill_value, out);
}

}  // namespace kiln::portable::native
