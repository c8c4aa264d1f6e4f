// randn.out: out of shape `size` with standard normal values, drawn from the context's random
// generator (see runtime/kernel/random_generator.h for seeding).
#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/random/fills.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& randn_out(KernelRuntimeContext& ctx, IntArrayRef size, Tensor& out) {
  if (!check_supported_dtype(ctx, out.scalar_type(), "out") || !check_random_sizes(ctx, size)) {
    return out;
  }
  // ATen's wording: its normal kernel exists for the floating dtypes only.
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(out.scalar_type()), InvalidType, out,
                        "\"normal_kernel_cpu\" not implemented for '%s'",
                        to_string(out.scalar_type()));
  if (!resize_or_fail(ctx, out, size)) return out;
  fill_normal(ctx, out);
  return out;
}

}  // namespace kiln::portable::native
