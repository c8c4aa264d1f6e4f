// The user's kernel: out = 2 * self for a float tensor.
#include "runtime/kernel/kernel_runtime_context.h"

namespace acme::native {

kiln::Tensor& double_it_out(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& self,
                            kiln::Tensor& out) {
  KILN_KERNEL_CHECK_MSG(
      ctx,
      self.scalar_type() == kiln::ScalarType::Float && out.scalar_type() == kiln::ScalarType::Float,
      InvalidArgument, out, "double_it takes Float tensors only");
  if (!kiln::resize_or_fail(ctx, out, self.sizes())) return out;
  const float* x = self.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) y[i] = 2 * x[i];
  return out;
}

}  // namespace acme::native
