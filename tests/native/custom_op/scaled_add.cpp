// The custom kernel: out = a + scale * b for same-shape float tensors.
#include "runtime/kernel/kernel_runtime_context.h"

namespace my_kernels::native {

kiln::Tensor& scaled_add_out(kiln::KernelRuntimeContext& ctx, const kiln::Tensor& a,
                             const kiln::Tensor& b, double scale, kiln::Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx,
                        a.scalar_type() == kiln::ScalarType::Float &&
                            b.scalar_type() == kiln::ScalarType::Float &&
                            out.scalar_type() == kiln::ScalarType::Float,
                        InvalidArgument, out, "scaled_add takes Float tensors only");
  KILN_KERNEL_CHECK_MSG(ctx, a.sizes().equals(b.sizes()), InvalidArgument, out,
                        "a and b must have the same shape");
  if (!kiln::resize_or_fail(ctx, out, a.sizes())) return out;
  const float* x = a.const_data_ptr<float>();
  const float* y = b.const_data_ptr<float>();
  float* z = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < a.numel(); ++i) z[i] = x[i] + static_cast<float>(scale) * y[i];
  return out;
}

}  // namespace my_kernels::native
