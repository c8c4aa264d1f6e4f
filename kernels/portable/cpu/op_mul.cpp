// mul.out and mul.Scalar_out: out = self * other.
#include "kernels/portable/cpu/util/broadcast.h"
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "kernels/portable/cpu/util/math.h"
#include "kernels/portable/cpu/util/promotion.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

Tensor& mul(KernelRuntimeContext& ctx, const Tensor& self, const ElementwiseInput& other,
            ScalarType common, Tensor& out) {
  if (!resize_to_broadcast(ctx, self.sizes(), other.sizes, out)) return out;
  apply_binary_op<kAllTypes, ScalarOther::kExact>(
      ElementwiseInput::of(self), other, common, out, [](auto zero) {
        using T = decltype(zero);
        return [](T a, T b) { return wrapping_mul(a, b); };
      });
  return out;
}

}  // namespace

Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, other, "other") ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  const ScalarType common = result_type(self, other);
  if (!check_out_dtype_castable(ctx, out, common)) return out;
  return mul(ctx, self, ElementwiseInput::of(other), common, out);
}

Tensor& mul_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                       Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType common = result_type(self, other);
  if (!check_out_dtype_is(ctx, out, common)) return out;
  ScalarStorage storage;
  return mul(ctx, self, scalar_input(other, storage), common, out);
}

}  // namespace kiln::portable::native
