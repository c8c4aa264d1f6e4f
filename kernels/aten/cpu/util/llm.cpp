// ATen mode: the LLM operators' shared libtorch plumbing.
#include "kernels/aten/cpu/util/llm.h"

#include <ATen/ATen.h>

namespace kiln::aten_kernels {

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor variance = xf.pow(2).mean(-1, /*keepdim=*/true);
  return (xf * at::rsqrt(variance + eps)).to(x.scalar_type()) * weight;
}

bool store(KernelRuntimeContext& ctx, const at::Tensor& result, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == result.scalar_type(), InvalidArgument, false,
                        "Expected out tensor to have dtype %s, but got %s instead; pass an out "
                        "tensor of dtype %s",
                        c10::toString(result.scalar_type()), c10::toString(out.scalar_type()),
                        c10::toString(result.scalar_type()));
  if (!resize_or_fail(ctx, out, result.sizes())) return false;
  return run_aten(ctx, [&] { out.copy_(result); });
}

}  // namespace kiln::aten_kernels
