// remainder.Tensor_out, remainder.Scalar_out (sign of the divisor, Python's %) and
// fmod.Tensor_out, fmod.Scalar_out (sign of the dividend, C's fmod).
#include <cmath>

#include "kernels/portable/cpu/util/binary_ops.h"
#include "kernels/portable/cpu/util/elementwise.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

template <typename Other>
Tensor& modulo(KernelRuntimeContext& ctx, const Tensor& self, const Other& other, bool python,
               Tensor& out) {
  const ScalarType common = prepare_binary(ctx, self, other, out, OutDtype::kCastable);
  if (common == ScalarType::Undefined) return out;
  if (common == ScalarType::Bool) {
    fail_dtype(ctx, python ? "remainder" : "fmod", common);
    return out;
  }
  ElementwiseInput other_input;
  ScalarStorage storage;
  if constexpr (std::is_same_v<Other, Scalar>) {
    other_input = scalar_input(other, storage);
  } else {
    other_input = ElementwiseInput::of(other);
  }
  bool zero_divisor = false;
  apply_binary_op(ElementwiseInput::of(self), other_input, common, out, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      return guard_zero_divisor<T>(&zero_divisor, [python](T a, T b) {
        return python ? remainder_int(a, b) : fmod_int(a, b);
      });
    } else {
      return [python](T a, T b) { return python ? remainder_float(a, b) : std::fmod(a, b); };
    }
  });
  KILN_KERNEL_CHECK_MSG(ctx, !zero_divisor, InvalidArgument, out,
                        "ZeroDivisionError: integer %s by zero; check the divisor for zeros or "
                        "compute in a floating dtype",
                        python ? "remainder" : "fmod");
  return out;
}

}  // namespace

Tensor& remainder_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                             Tensor& out) {
  return modulo(ctx, self, other, /*python=*/true, out);
}

Tensor& remainder_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                             Tensor& out) {
  return modulo(ctx, self, other, /*python=*/true, out);
}

Tensor& fmod_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                        Tensor& out) {
  return modulo(ctx, self, other, /*python=*/false, out);
}

Tensor& fmod_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                        Tensor& out) {
  return modulo(ctx, self, other, /*python=*/false, out);
}

}  // namespace kiln::portable::native
