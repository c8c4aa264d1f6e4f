// Argument checks and promotion shared by the binary elementwise kernels.
#include "kernels/portable/cpu/util/binary_ops.h"

#include "kernels/portable/cpu/util/broadcast.h"
#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/promotion.h"

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

void fail_dtype(KernelRuntimeContext& ctx, const char* name, ScalarType common) {
  ctx.fail(Error::InvalidArgument,
           "%s is not implemented for dtype %s (the promoted dtype of its inputs); convert the "
           "inputs to a supported dtype",
           name, to_string(common));
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
