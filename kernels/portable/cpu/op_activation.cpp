// Activations: gelu, silu, hardtanh, hardswish, hardsigmoid, leaky_relu and elu; out has self's
// dtype. All but hardtanh take floating inputs only; Half and BFloat16 compute in float.
#include <cmath>
#include <string_view>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/unary.h"
#include "kernels/portable/cpu/util/vec_math.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Checks shared by the activations: supported tensors, a floating self when `floating_only`,
// out of self's dtype, resized to self's shape.
bool prepare(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const char* op,
             bool floating_only) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return false;
  if (floating_only && !is_floating_type(self.scalar_type())) {
    ctx.fail(Error::InvalidType,
             "%s is not implemented for dtype %s; pass a floating point tensor (Half, BFloat16, "
             "Float or Double)",
             op, to_string(self.scalar_type()));
    return false;
  }
  return check_out_dtype_is(ctx, out, self.scalar_type()) && resize_or_fail(ctx, out, self.sizes());
}

// Runs a floating activation: make_op(C{}) gets the compute type (float or double).
template <typename MakeOp>
void run_floating(const Tensor& self, Tensor& out, MakeOp&& make_op) {
  apply_unary<kFloatingTypes>(self, self.scalar_type(), out, make_op);
}

}  // namespace

Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate,
                 Tensor& out) {
  const bool tanh = approximate == "tanh";
  KILN_KERNEL_CHECK_MSG(ctx, tanh || approximate == "none", InvalidArgument, out,
                        "approximate argument must be either none or tanh; got '%.*s'",
                        static_cast<int>(approximate.size()), approximate.data());
  if (!prepare(ctx, self, out, "gelu", true)) return out;
  if (tanh) {
    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    run_floating(self, out, [](auto zero) {
      using C = decltype(zero);
      return [](C x) {
        const C inner = C(0.7978845608028654) * (x + C(0.044715) * x * x * x);
        return C(0.5) * x * (C(1) + tanh_compute(inner));
      };
    });
  } else {
    // x Phi(x) = 0.5 x (1 + erf(x / sqrt(2))), with Phi computed without cancelling for x < 0.
    run_floating(self, out, [](auto zero) {
      using C = decltype(zero);
      return [](C x) { return x * normal_cdf_compute(x); };
    });
  }
  return out;
}

Tensor& silu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!prepare(ctx, self, out, "silu", true)) return out;
  run_floating(self, out, [](auto zero) {
    using C = decltype(zero);
    return [](C x) { return silu_compute(x); };
  });
  return out;
}

Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& min_val,
                     const Scalar& max_val, Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, dtype != ScalarType::Bool, InvalidType, out,
                        "Bool inputs not supported for hardtanh; convert self to a numeric dtype");
  KILN_KERNEL_CHECK_MSG(
      ctx,
      dtype != ScalarType::Byte ||
          (scalar_value<int64_t>(min_val) >= 0 && scalar_value<int64_t>(max_val) >= 0),
      InvalidArgument, out,
      "cannot do hardtanh on an unsigned type with negative limits; pass limits >= 0");
  if (!prepare(ctx, self, out, "hardtanh", false)) return out;
  if (!check_scalar_converts(ctx, min_val, dtype, "min_val") ||
      !check_scalar_converts(ctx, max_val, dtype, "max_val")) {
    return out;
  }
  apply_unary(self, dtype, out, [&](auto zero) {
    using T = decltype(zero);
    return ClampOp<T>(scalar_value<T>(min_val), scalar_value<T>(max_val));
  });
  return out;
}

Tensor& hardswish_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!prepare(ctx, self, out, "hardswish", true)) return out;
  run_floating(self, out, [](auto zero) {
    using C = decltype(zero);
    // max/min that keep NaN: x + 3 < 0 is false for NaN.
    return [](C x) { return x * clamp_value(x + C(3), C(0), C(6)) / C(6); };
  });
  return out;
}

Tensor& hardsigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!prepare(ctx, self, out, "hardsigmoid", true)) return out;
  run_floating(self, out, [](auto zero) {
    using C = decltype(zero);
    return [](C x) { return clamp_value(x + C(3), C(0), C(6)) / C(6); };
  });
  return out;
}

Tensor& leaky_relu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& negative_slope,
                       Tensor& out) {
  if (!prepare(ctx, self, out, "leaky_relu", true)) return out;
  run_floating(self, out, [&](auto zero) {
    using C = decltype(zero);
    const C slope = scalar_value<C>(negative_slope);
    return [slope](C x) { return select(x > C(0), x, x * slope); };
  });
  return out;
}

Tensor& elu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& alpha,
                const Scalar& scale, const Scalar& input_scale, Tensor& out) {
  if (!prepare(ctx, self, out, "elu", true)) return out;
  run_floating(self, out, [&](auto zero) {
    using C = decltype(zero);
    const C negative_scale = scalar_value<C>(alpha) * scalar_value<C>(scale);
    const C positive_scale = scalar_value<C>(scale);
    const C input = scalar_value<C>(input_scale);
    return [=](C x) {
      return select(x <= C(0), expm1_compute(x * input) * negative_scale, x * positive_scale);
    };
  });
  return out;
}

}  // namespace kiln::portable::native
