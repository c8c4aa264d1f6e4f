// ATen mode: the LLM operators' shared checks, with the portable kernels' refusals.
#include "kernels/aten/cpu/util/llm.h"

#include <ATen/ATen.h>

namespace kiln::aten_kernels {

bool check_activation(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name) {
  const c10::ScalarType dtype = tensor.scalar_type();
  KILN_KERNEL_CHECK_MSG(
      ctx, dtype == c10::kFloat || dtype == c10::kHalf || dtype == c10::kBFloat16, InvalidType,
      false, "%s has dtype %s; pass a Float, Half or BFloat16 tensor", name, c10::toString(dtype));
  return true;
}

bool check_dtype(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name,
                 c10::ScalarType dtype) {
  KILN_KERNEL_CHECK_MSG(ctx, tensor.scalar_type() == dtype, InvalidType, false,
                        "%s has dtype %s; pass %s of dtype %s", name,
                        c10::toString(tensor.scalar_type()), name, c10::toString(dtype));
  return true;
}

bool check_index(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name, int64_t rank) {
  const c10::ScalarType dtype = tensor.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype == c10::kInt || dtype == c10::kLong, InvalidType, false,
                        "%s has dtype %s; pass an Int or Long tensor", name, c10::toString(dtype));
  return check_rank(ctx, tensor, name, rank);
}

bool check_rank(KernelRuntimeContext& ctx, const Tensor& tensor, const char* name, int64_t rank,
                int64_t size) {
  KILN_KERNEL_CHECK_MSG(ctx, tensor.dim() == rank && (size < 0 || tensor.size(0) == size),
                        InvalidArgument, false, "%s has shape %s; it must have %lld dims%s", name,
                        c10::str(tensor.sizes()).c_str(), static_cast<long long>(rank),
                        size < 0 ? "" : " and a first dim of the given size");
  return true;
}

bool check_norm(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight) {
  if (!check_activation(ctx, input, "input") ||
      !check_dtype(ctx, weight, "weight", input.scalar_type())) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(
      ctx, input.dim() >= 1, InvalidArgument, false,
      "input must have at least one dim (normalised over the last), but is 0-dim");
  KILN_KERNEL_CHECK_MSG(ctx, weight.dim() == 1 && weight.size(0) == input.size(-1), InvalidArgument,
                        false, "weight has shape %s but input has shape %s",
                        c10::str(weight.sizes()).c_str(), c10::str(input.sizes()).c_str());
  return true;
}

bool check_gated(KernelRuntimeContext& ctx, const Tensor& input) {
  if (!check_activation(ctx, input, "input")) return false;
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() >= 1 && input.size(-1) % 2 == 0, InvalidArgument, false,
                        "input [..., 2 * d] has shape %s; pass a last dim of even size",
                        c10::str(input.sizes()).c_str());
  return true;
}

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
