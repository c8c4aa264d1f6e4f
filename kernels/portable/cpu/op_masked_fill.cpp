// masked_fill.Scalar_out: self (broadcast with a bool mask) with `value` where the mask is true.
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/elementwise/broadcast.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "kernels/portable/cpu/util/vec/bit_select.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// out[i] = mask[i * sm] ? fill : self[i * ss] for one row (strides 0 or 1), the Bool mask read
// as bytes and selected through bits (vec/bit_select.h) so the loop vectorises for every width.
template <typename U>
KILN_HOT_LOOP void fill_row(const U* self, int64_t ss, const uint8_t* mask, int64_t sm, U fill,
                            U* out, int64_t n) {
  if (ss == 1 && sm == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = select_bits(mask[i], fill, self[i]);
  } else if (sm == 0) {
    const uint8_t m = mask[0];
    for (int64_t i = 0; i < n; ++i) out[i] = select_bits(m, fill, self[i * ss]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = select_bits(mask[i * sm], fill, self[i * ss]);
  }
}

}  // namespace

Tensor& masked_fill_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                               const Scalar& value, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, mask, "mask") ||
      !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, mask.scalar_type() == ScalarType::Bool, InvalidArgument, out,
                        "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                        to_string(mask.scalar_type()));
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, fill_value_fits(value, dtype), InvalidArgument, out,
                        "value cannot be converted to type %s without overflow: %s",
                        to_string(dtype), format_scalar(value).text);
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!resize_to_broadcast(ctx, self.sizes(), mask.sizes(), out)) return out;
  alignas(8) unsigned char converted[8] = {};
  store_fill_value(value, dtype, converted);
  const ArrayRef<SizesType> inputs[2] = {self.sizes(), mask.sizes()};
  BroadcastPlan plan;
  make_broadcast_plan(out.sizes(), inputs, 2, &plan);
  const uint8_t* mask_data = reinterpret_cast<const uint8_t*>(mask.const_data_ptr<bool>());
  dispatch_by_width(self.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    const U* src = self.const_data_ptr<U>();
    U* dst = out.mutable_data_ptr<U>();
    const U fill = *reinterpret_cast<const U*>(converted);
    const int64_t ss = plan.row_stride(0);
    const int64_t sm = plan.row_stride(1);
    for_each_row(plan, [&](const int64_t* offsets, int64_t out_offset, int64_t n) {
      fill_row(src + offsets[0], ss, mask_data + offsets[1], sm, fill, dst + out_offset, n);
    });
  });
  return out;
}

}  // namespace kiln::portable::native
