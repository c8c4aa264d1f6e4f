// _conj_physical.out: the complex conjugate of self, materialised. Kiln's dtypes are all real,
// where the conjugate is a copy (same dtype and shape); complex tensors are refused.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _conj_physical_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!check_supported_dtype(ctx, self.scalar_type(), "self")) return out;
  return clone_into(ctx, self, std::nullopt, out);
}

}  // namespace kiln::portable::native
