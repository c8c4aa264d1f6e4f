// ATen mode: ExecuTorch's allclose.out / allclose.Tensor on libtorch's tensors (at::allclose's
// answer as a Bool tensor), under the names custom_ops.yaml binds.
#include <ATen/ops/allclose.h>
#include <ATen/ops/scalar_tensor.h>

#include <exception>

#include "runtime/kernel/aten/aten_bridge.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// at::allclose into `close`; false after ctx.fail with libtorch's message when it refuses.
bool aten_allclose(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, double rtol,
                   double atol, bool equal_nan, bool* close) {
  try {
    *close = at::allclose(self, other, rtol, atol, equal_nan);
    return true;
  } catch (const std::exception& error) {
    aten_bridge::fail_from_exception(ctx, error);
    return false;
  }
}

}  // namespace

Tensor& allclose_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     double rtol, double atol, bool equal_nan, bool dummy_param, Tensor& out) {
  (void)dummy_param;
  bool close = false;
  if (!aten_allclose(ctx, self, other, rtol, atol, equal_nan, &close)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == c10::kBool, InvalidArgument, out,
                        "Expected out tensor to have dtype Bool, but got %s instead; pass an out "
                        "tensor of dtype Bool",
                        c10::toString(out.scalar_type()));
  // As the portable kernel: a one-element out keeps its shape; any other becomes 0-dim.
  if (out.numel() != 1 && !resize_or_fail(ctx, out, c10::IntArrayRef{})) return out;
  out.fill_(close);
  return out;
}

Tensor allclose_tensor(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                       double rtol, double atol, bool equal_nan, bool dummy_param) {
  (void)dummy_param;
  bool close = false;
  if (!aten_allclose(ctx, self, other, rtol, atol, equal_nan, &close)) return Tensor();
  return at::scalar_tensor(close, at::kBool);
}

}  // namespace kiln::portable::native
