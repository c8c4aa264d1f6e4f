// masked_scatter.out: self (broadcast with a bool mask) with the positions where the mask is true
// filled, in row-major order, from source's leading elements.
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "kernels/portable/cpu/util/index/masked.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& masked_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                           const Tensor& source, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, mask, "mask") ||
      !check_default_dim_order(ctx, source, "source") ||
      !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, mask.scalar_type() == ScalarType::Bool, InvalidArgument, out,
                        "masked_scatter_ only supports boolean masks, but got mask with dtype %s",
                        to_string(mask.scalar_type()));
  KILN_KERNEL_CHECK_MSG(ctx, source.scalar_type() == self.scalar_type(), InvalidArgument, out,
                        "masked_scatter: expected self and source to have same dtypes but got %s "
                        "and %s",
                        to_string(self.scalar_type()), to_string(source.scalar_type()));
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  MaskedPlan masked;
  if (!plan_masked(ctx, self, mask, &masked)) return out;
  const BroadcastPlan& plan = masked.plan;
  const int64_t count = masked.selected;
  const bool* mask_data = mask.const_data_ptr<bool>();
  const int64_t sm = plan.row_stride(1);
  KILN_KERNEL_CHECK_MSG(ctx, source.numel() >= count, InvalidArgument, out,
                        "Number of elements of source < number of ones in mask (%lld < %lld)",
                        static_cast<long long>(source.numel()), static_cast<long long>(count));
  if (!resize_or_fail(ctx, out, {masked.sizes, masked.rank})) return out;
  dispatch_by_width(self.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    const U* src = self.const_data_ptr<U>();
    const U* next = source.const_data_ptr<U>();
    U* dst = out.mutable_data_ptr<U>();
    const int64_t ss = plan.row_stride(0);
    for_each_row(plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
      const U* s = src + offsets[0];
      const bool* m = mask_data + offsets[1];
      U* d = dst + out_offset;
      for (int64_t i = 0; i < n; ++i) d[i] = load_bool_byte(&m[i * sm]) ? *next++ : s[i * ss];
    });
  });
  return out;
}

}  // namespace kiln::portable::native
