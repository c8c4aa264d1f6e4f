// view_as_real_copy.out: a complex tensor's elements as (real, imaginary) pairs of its value
// type, a new last dim of 2; the bytes are the same.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The real type of a complex dtype's parts.
ScalarType value_type(ScalarType complex) {
  switch (complex) {
    case ScalarType::ComplexHalf:
      return ScalarType::Half;
    case ScalarType::ComplexFloat:
      return ScalarType::Float;
    default:
      return ScalarType::Double;
  }
}

}  // namespace

Tensor& view_as_real_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, is_complex_type(self.scalar_type()), InvalidArgument, out,
                        "view_as_real is only supported for complex tensors (self has dtype %s)",
                        to_string(self.scalar_type()));
  const int64_t rank = self.dim();
  KILN_KERNEL_CHECK_MSG(ctx, rank < static_cast<int64_t>(kTensorDimensionLimit), InvalidArgument,
                        out, "view_as_real adds a dim to self's %lld; tensors have at most %zu",
                        static_cast<long long>(rank), kTensorDimensionLimit);
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t d = 0; d < rank; ++d) sizes[d] = self.size(d);
  sizes[rank] = 2;
  if (!check_default_dim_order(ctx, self, "self") || !check_default_dim_order(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, value_type(self.scalar_type())) ||
      !resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank + 1)})) {
    return out;
  }
  copy_bytes(ctx, self, out);
  return out;
}

}  // namespace kiln::portable::native
