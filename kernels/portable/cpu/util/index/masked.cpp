#include "kernels/portable/cpu/util/index/masked.h"

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/vec/convert.h"

namespace kiln::portable {

bool plan_masked(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                 MaskedPlan* masked) {
  KILN_KERNEL_CHECK_MSG(ctx,
                        broadcast_shapes(self.sizes(), mask.sizes(), masked->sizes, &masked->rank),
                        InvalidArgument, false,
                        "self and mask shapes %s and %s are not broadcastable: sizes must match "
                        "or be 1 in each trailing dim",
                        format_shape(self.sizes()).text, format_shape(mask.sizes()).text);
  const ArrayRef<SizesType> inputs[2] = {self.sizes(), mask.sizes()};
  make_broadcast_plan({masked->sizes, masked->rank}, inputs, 2, &masked->plan);
  const bool* mask_data = mask.const_data_ptr<bool>();
  const int64_t sm = masked->plan.row_stride(1);
  int64_t count = 0;
  for_each_row(masked->plan, [&](const int64_t* offsets, int64_t, int64_t n) {
    const bool* m = mask_data + offsets[1];
    if (sm == 0) {
      count += load_bool_byte(m) ? n : 0;
    } else {
      for (int64_t i = 0; i < n; ++i) count += load_bool_byte(&m[i]) ? 1 : 0;
    }
  });
  masked->selected = count;
  return true;
}

}  // namespace kiln::portable
