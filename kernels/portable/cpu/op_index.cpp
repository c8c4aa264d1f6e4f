// index.Tensor_out: advanced indexing (self[indices] with integer and boolean index tensors).
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/advanced_index.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& index_tensor_out(KernelRuntimeContext& ctx, const Tensor& self,
                         ArrayRef<std::optional<Tensor>> indices, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, out, "out")) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  // ATen accepts an index list of only None (or 0-dim masks) when self is empty: a copy.
  const bool allow_empty = indices.size() > 0 && self.numel() == 0;
  AdvancedIndex plan;
  if (!make_advanced_index(ctx, self, indices, allow_empty, &plan)) return out;
  if (!resize_or_fail(ctx, out, {plan.result_sizes, plan.result_dim})) return out;
  const int64_t inner = plan.inner;
  dispatch_by_width(self.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    const U* src = self.const_data_ptr<U>();
    U* dst = out.mutable_data_ptr<U>();
    if (inner == 1) {
      for_each_index_block(plan, [&](int64_t block, int64_t offset) { dst[block] = src[offset]; });
    } else {
      for_each_index_block(plan, [&](int64_t block, int64_t offset) {
        copy_block(dst + block * inner, src + offset, inner);
      });
    }
  });
  return out;
}

}  // namespace kiln::portable::native
