// Argument checks and promotion shared by the binary elementwise kernels.
#include "kernels/portable/cpu/util/elementwise/binary_ops.h"

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/promotion.h"
#include "kernels/portable/cpu/util/elementwise/broadcast.h"

namespace kiln::portable {
namespace {

ScalarType promoted(ScalarType common, Promotion promotion) {
  return promotion == Promotion::kToFloat && !is_floating_type(common) ? ScalarType::Float : common;
}

}  // namespace

bool check_out_dtype(KernelRuntimeContext& ctx, const Tensor& out, ScalarType result,
                     OutDtype rule) {
  switch (rule) {
    case OutDtype::kCastable:
      return check_out_dtype_castable(ctx, out, result);
    case OutDtype::kExact:
      return check_out_dtype_is(ctx, out, result);
    case OutDtype::kAny:
      return true;
  }
  return true;
}

bool check_alpha(KernelRuntimeContext& ctx, const Scalar& alpha, ScalarType common) {
  KILN_KERNEL_CHECK_MSG(ctx, !alpha.isBoolean() || common == ScalarType::Bool, InvalidArgument,
                        false,
                        "Boolean alpha only supported for Boolean results (result dtype is %s); "
                        "pass alpha as a number",
                        to_string(common));
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(common) || alpha.isIntegral(true), InvalidArgument,
                        false,
                        "For integral input tensors, argument alpha must not be a floating point "
                        "number (got alpha=%s with result dtype %s)",
                        format_scalar(alpha).text, to_string(common));
  return true;
}

Scalar negated(const Scalar& value) {
  if (value.isFloatingPoint()) return Scalar(-value.toDouble());
  return Scalar(static_cast<int64_t>(0 - static_cast<uint64_t>(value.toInt())));
}

void fail_dtype(KernelRuntimeContext& ctx, const char* name, ScalarType common) {
  ctx.fail(Error::InvalidArgument,
           "%s is not implemented for dtype %s (the promoted dtype of its inputs); convert the "
           "inputs to a supported dtype",
           name, to_string(common));
}

bool check_sub_operands(KernelRuntimeContext& ctx, bool self_bool, bool other_bool) {
  KILN_KERNEL_CHECK_MSG(ctx, !(self_bool && other_bool), InvalidArgument, false,
                        "Subtraction, the `-` operator, with two bool tensors is not supported; "
                        "use logical_xor instead");
  KILN_KERNEL_CHECK_MSG(ctx, !self_bool && !other_bool, InvalidArgument, false,
                        "Subtraction, the `-` operator, with a bool tensor is not supported; "
                        "to invert a mask use logical_not, or convert the tensor to an integer "
                        "dtype first");
  return true;
}

ScalarType prepare_binary(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                          Tensor& out, OutDtype rule, Promotion promotion) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, other, "other") ||
      !check_tensor(ctx, out, "out")) {
    return ScalarType::Undefined;
  }
  const ScalarType common = promoted(result_type(self, other), promotion);
  if (!check_out_dtype(ctx, out, common, rule)) return ScalarType::Undefined;
  if (!resize_to_broadcast(ctx, self.sizes(), other.sizes(), out)) return ScalarType::Undefined;
  return common;
}

ScalarType prepare_binary(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                          Tensor& out, OutDtype rule, Promotion promotion) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) {
    return ScalarType::Undefined;
  }
  const ScalarType common = promoted(result_type(self, other), promotion);
  if (!check_out_dtype(ctx, out, common, rule)) return ScalarType::Undefined;
  if (!resize_or_fail(ctx, out, self.sizes())) return ScalarType::Undefined;
  return common;
}

}  // namespace kiln::portable
