// masked_select.out: the elements of self (broadcast with a bool mask) where the mask is true, in
// row-major order, as a 1-D out sized to their count.
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "kernels/portable/cpu/util/index/masked.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& masked_select_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                          Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, mask, "mask") ||
      !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, mask.scalar_type() == ScalarType::Bool, InvalidArgument, out,
                        "masked_select: expected BoolTensor for mask (got %s)",
                        to_string(mask.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, out,
                        "masked_select(): self and result must have the same scalar type (self "
                        "%s, out %s)",
                        to_string(self.scalar_type()), to_string(out.scalar_type()));
  MaskedPlan masked;
  if (!plan_masked(ctx, self, mask, &masked)) return out;
  const BroadcastPlan& plan = masked.plan;
  const int64_t count = masked.selected;
  const bool* mask_data = mask.const_data_ptr<bool>();
  const int64_t sm = plan.row_stride(1);
  const SizesType out_size[1] = {count};
  if (!resize_or_fail(ctx, out, {out_size, 1})) return out;
  dispatch_by_width(self.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    const U* src = self.const_data_ptr<U>();
    U* dst = out.mutable_data_ptr<U>();
    const int64_t ss = plan.row_stride(0);
    for_each_row(plan, [&](const int64_t* offsets, int64_t, int64_t n) {
      const U* s = src + offsets[0];
      const bool* m = mask_data + offsets[1];
      for (int64_t i = 0; i < n; ++i) {
        if (load_bool_byte(&m[i * sm])) *dst++ = s[i * ss];
      }
    });
  });
  return out;
}

}  // namespace kiln::portable::native
