// ATen mode: dim_order_ops::_empty_dim_order.out on libtorch's tensors (out resized to `size` in
// the layout a dim order names, contiguous when None), under the name custom_ops.yaml binds.
#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/aten/cpu/util/dim_order_copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _empty_dim_order_out(KernelRuntimeContext& ctx, IntArrayRef size,
                             std::optional<IntArrayRef> dim_order, Tensor& out) {
  const size_t rank = size.size();
  KILN_KERNEL_CHECK_MSG(ctx, rank <= kTensorDimensionLimit, InvalidArgument, out,
                        "size has %zu dims; tensors have at most %zu", rank, kTensorDimensionLimit);
  for (size_t d = 0; d < rank; ++d) {
    KILN_KERNEL_CHECK_MSG(ctx, size[d] >= 0, InvalidArgument, out,
                          "Trying to create tensor with negative dimension %lld",
                          static_cast<long long>(size[d]));
  }
  DimOrderType order[kTensorDimensionLimit];
  if (dim_order.has_value()) {
    bool seen[kTensorDimensionLimit] = {};
    bool valid = dim_order->size() == rank;
    for (size_t i = 0; valid && i < rank; ++i) {
      const int64_t d = (*dim_order)[i];
      valid = d >= 0 && d < static_cast<int64_t>(rank) && !seen[d];
      if (valid) seen[d] = true;
      order[i] = static_cast<DimOrderType>(d);
    }
    KILN_KERNEL_CHECK_MSG(ctx, valid, InvalidArgument, out,
                          "dim_order is not a permutation of the %zu dims of size; list each dim "
                          "once, outermost first (e.g. [0, 2, 3, 1] for channels last)",
                          rank);
  } else {
    fill_default_dim_order({order, rank});
  }
  try {
    if (!aten_kernels::resize_keeping_dim_order(ctx, out, size)) return out;
  } catch (const c10::Error& error) {
    ctx.fail(Error::InvalidArgument, "%s", error.what_without_backtrace());
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, aten_kernels::has_layout(out, order), InvalidArgument, out,
                        "out does not have the dim order %s asks for; give out that dim order, "
                        "which is the one the program's memory plan gives it",
                        dim_order.has_value() ? "dim_order" : "dim_order None (contiguous)");
  return out;
}

}  // namespace kiln::portable::native
