// Bodies and checks of the unary elementwise kernels that come in families: the floating
// functions (exp, log, sin, ...), the rounding ops, the ops whose out has self's dtype (abs, neg,
// sign, bitwise_not), the predicates isnan and isinf, and the activations.
//
// Each op file calls these templates with its own functor (a generic lambda over the element
// types), so every op instantiates its own loops and compiles under its own operators' dtype
// selection.
#pragma once

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/elementwise/unary_driver.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// The floating functions: fn (a generic lambda over float and double) on self converted to its
// floating dtype; integer and bool inputs compute in Float, the default dtype, as in ATen, and
// out may be any floating dtype.
template <typename Fn>
Tensor& floating_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, Fn fn) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType self_type = self.scalar_type();
  const ScalarType common = is_floating_type(self_type) ? self_type : ScalarType::Float;
  if (!check_out_dtype_castable(ctx, out, common)) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  apply_unary<kFloatingTypes>(ctx, self, common, out, [&](auto) { return fn; });
  return out;
}

// floor, ceil, trunc and round (called `op`): fn (a generic lambda over float and double) on
// floating self; integer inputs are copied unchanged and Bool is rejected, as in ATen. out has
// self's dtype.
template <typename Fn>
Tensor& rounding_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const char* op,
                     Fn fn) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype != ScalarType::Bool, InvalidType, out,
                        "%s is not implemented for Bool; convert self to a numeric dtype", op);
  if (!check_out_dtype_is(ctx, out, dtype) || !resize_or_fail(ctx, out, self.sizes())) return out;
  if (is_floating_type(dtype)) {
    apply_unary<kFloatingTypes>(ctx, self, dtype, out, [&](auto) { return fn; });
  } else {
    apply_unary<kIntegralTypes>(ctx, self, dtype, out, [](auto zero) {
      using T = decltype(zero);
      return [](T x) { return x; };
    });
  }
  return out;
}

// self and out are tensors the portable kernels compute on. False after ctx.fail.
bool check_unary_tensors(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& out);

// check_unary_tensors, then out has self's dtype and is resized to self's shape. False after
// ctx.fail.
bool prepare_same_dtype(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);

// isnan and isinf: out (Bool) = predicate(self); integers are never NaN or infinite.
template <typename Predicate>
Tensor& predicate_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out,
                      Predicate predicate) {
  if (!check_unary_tensors(ctx, self, out) || !check_out_dtype_is(ctx, out, ScalarType::Bool) ||
      !resize_or_fail(ctx, out, self.sizes())) {
    return out;
  }
  apply_unary(ctx, self, self.scalar_type(), out, [&](auto zero) {
    using T = decltype(zero);
    return [predicate](T x) { return static_cast<T>(predicate(x)); };
  });
  return out;
}

// The checks of the activations (called `op`): supported tensors, a floating self when
// `floating_only`, out of self's dtype, resized to self's shape. False after ctx.fail.
bool prepare_activation(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const char* op,
                        bool floating_only);

// Runs a floating activation: make_op(C{}) gets the compute type (float or double); Half and
// BFloat16 compute in float.
template <typename MakeOp>
void run_floating(const KernelRuntimeContext& ctx, const Tensor& self, Tensor& out,
                  MakeOp&& make_op) {
  apply_unary<kFloatingTypes>(ctx, self, self.scalar_type(), out, make_op);
}

}  // namespace kiln::portable
