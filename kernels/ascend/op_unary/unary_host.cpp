// Host wrappers of the unary elementwise ops on Ascend: relu, gelu, sigmoid, tanh, exp, sqrt,
// rsqrt, abs, neg and clamp (Scalar limits). out has self's dtype; anything else declines.
#include <cfloat>
#include <cmath>
#include <optional>
#include <string_view>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_unary/unary_kernels.h"
#include "kernels/ascend/op_unary/unary_tiling.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_UNARY)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_UNARY, launch_unary, DeviceDtype, "unary")

// out = op(self) for a contiguous self of a dtype the kernel takes; declines everything else.
// `dtype` is self's device dtype, already accepted.
Tensor& launch_checked(KernelRuntimeContext& ctx, UnaryOp op, DeviceDtype dtype,
                       const UnaryLimits& limits, const Tensor& self, Tensor& out) {
  if (!accept_input(ctx, self, "self", self.scalar_type()) ||
      !accept_tensor(ctx, out, "out", self.scalar_type())) {
    return out;
  }
  if (!resize_or_fail(ctx, out, self.sizes()) || self.numel() == 0) return out;
  const Platform device = platform();
  const UnaryTiling tiling = unary_tiling(op, dtype, static_cast<uint64_t>(self.numel()),
                                          device.ub_bytes, device.vector_cores, limits);
  const size_t size = device_element_size(dtype);
  const size_t bytes = static_cast<size_t>(self.numel()) * size;
  DeviceBuffer x, y, t;
  if (!x.upload(ctx, self.const_data_ptr(), bytes, tiling.total * size) ||
      !y.allocate(ctx, tiling.total * size) || !t.upload(ctx, &tiling, sizeof(tiling))) {
    return out;
  }
  if (finish_launch(ctx, launch_unary(dtype, tiling.block_dim, x.get(), y.get(), t.get()))) {
    (void)y.download(ctx, out.mutable_data_ptr(), bytes);
  }
  return out;
}

Tensor& run_unary(KernelRuntimeContext& ctx, UnaryOp op, bool int32_ok, const Tensor& self,
                  Tensor& out) {
  DeviceDtype dtype;
  if (!accept_dtype(ctx, self.scalar_type(), int32_ok, &dtype)) return out;
  return launch_checked(ctx, op, dtype, UnaryLimits{}, self, out);
}

// A clamp limit as torch applies it to a floating self: the value rounded to the dtype (through
// float, as c10 converts). NaN limits and limits beyond the dtype's range (torch refuses those)
// decline.
bool floating_limit(KernelRuntimeContext& ctx, const Scalar& limit, ScalarType dtype,
                    const char* name, float* value) {
  const double exact = limit.toDouble();
  if (std::isnan(exact)) return decline(ctx, "a NaN %s limit", name);
  const double largest = dtype == ScalarType::Half       ? 65504.0
                         : dtype == ScalarType::BFloat16 ? 3.3895313892515355e38
                                                         : static_cast<double>(FLT_MAX);
  if (std::isfinite(exact) && std::fabs(exact) > largest) {
    return decline(ctx, "%s limit %g beyond the range of %s", name, exact, to_string(dtype));
  }
  const float rounded =
      limit.isFloatingPoint() ? static_cast<float>(exact) : static_cast<float>(limit.toInt());
  switch (dtype) {
    case ScalarType::Half:
      *value = static_cast<float>(Half(rounded));
      break;
    case ScalarType::BFloat16:
      *value = static_cast<float>(BFloat16(rounded));
      break;
    default:
      *value = rounded;
      break;
  }
  return true;
}

// A clamp limit of an Int self: an integer in its range (a floating limit promotes to Float).
bool int_limit(KernelRuntimeContext& ctx, const Scalar& limit, const char* name, int32_t* value) {
  if (limit.isFloatingPoint()) {
    return decline(ctx, "a floating %s limit with an Int self (the result is Float)", name);
  }
  const int64_t exact = limit.toInt();
  if (exact < INT32_MIN || exact > INT32_MAX) {
    return decline(ctx, "%s limit %lld beyond the range of Int", name,
                   static_cast<long long>(exact));
  }
  *value = static_cast<int32_t>(exact);
  return true;
}

bool clamp_limit(KernelRuntimeContext& ctx, const std::optional<Scalar>& limit, DeviceDtype dtype,
                 ScalarType self_type, const char* name, uint32_t* has, float* value,
                 int32_t* int_value) {
  *has = limit.has_value() ? 1 : 0;
  if (!limit.has_value()) return true;
  return dtype == DeviceDtype::Int32 ? int_limit(ctx, *limit, name, int_value)
                                     : floating_limit(ctx, *limit, self_type, name, value);
}

}  // namespace
}  // namespace kiln::ascend

// The ops' kernels, as functions.yaml binds them (kiln::ascend::<op> -> ...::native::<op>).
namespace kiln::ascend::native {

Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Relu, /*int32_ok=*/true, self, out);
}

Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate,
                 Tensor& out) {
  const bool tanh = approximate == "tanh";
  if (!tanh && approximate != "none") {
    (void)decline(ctx, "approximate='%.*s'", static_cast<int>(approximate.size()),
                  approximate.data());
    return out;
  }
  return run_unary(ctx, tanh ? UnaryOp::GeluTanh : UnaryOp::GeluErf, /*int32_ok=*/false, self, out);
}

Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Sigmoid, /*int32_ok=*/false, self, out);
}

Tensor& tanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Tanh, /*int32_ok=*/false, self, out);
}

Tensor& exp_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Exp, /*int32_ok=*/false, self, out);
}

Tensor& sqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Sqrt, /*int32_ok=*/false, self, out);
}

Tensor& rsqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Rsqrt, /*int32_ok=*/false, self, out);
}

Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Abs, /*int32_ok=*/true, self, out);
}

Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return run_unary(ctx, UnaryOp::Neg, /*int32_ok=*/true, self, out);
}

Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max, Tensor& out) {
  if (!min.has_value() && !max.has_value()) {
    (void)decline(ctx, "clamp without limits");
    return out;
  }
  DeviceDtype dtype;
  if (!accept_dtype(ctx, self.scalar_type(), /*int32_ok=*/true, &dtype)) return out;
  UnaryLimits limits;
  if (!clamp_limit(ctx, min, dtype, self.scalar_type(), "min", &limits.has_min, &limits.min_value,
                   &limits.min_int) ||
      !clamp_limit(ctx, max, dtype, self.scalar_type(), "max", &limits.has_max, &limits.max_value,
                   &limits.max_int)) {
    return out;
  }
  return launch_checked(ctx, UnaryOp::Clamp, dtype, limits, self, out);
}

}  // namespace kiln::ascend::native
