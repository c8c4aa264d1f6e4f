// dim_order_ops::_empty_dim_order.out: out resized to `size` in the layout `dim_order` names
// (contiguous when None); its values are left as they are. ExecuTorch's exporter writes it for
// torch.empty and friends.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "runtime/core/dim_order.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Whether out's memory is laid out as `order` lays out out's shape (dims of size 1 take no part,
// and an empty tensor has every layout).
bool has_layout(const Tensor& out, ArrayRef<DimOrderType> order) {
  if (out.numel() == 0) return true;
  StridesType strides[kTensorDimensionLimit];
  if (dim_order_to_strides(out.sizes(), order, {strides, order.size()}) != Error::Ok) return false;
  for (size_t d = 0; d < order.size(); ++d) {
    if (out.sizes()[d] > 1 && out.strides()[d] != strides[d]) return false;
  }
  return true;
}

}  // namespace

Tensor& _empty_dim_order_out(KernelRuntimeContext& ctx, IntArrayRef size,
                             std::optional<IntArrayRef> dim_order, Tensor& out) {
  if (!check_rank_limit(ctx, size.size(), "size")) return out;
  const size_t rank = size.size();
  for (size_t d = 0; d < rank; ++d) {
    KILN_KERNEL_CHECK_MSG(ctx, size[d] >= 0, InvalidArgument, out,
                          "Trying to create tensor with negative dimension %lld: %s",
                          static_cast<long long>(size[d]), format_shape(size).text);
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
                          "dim_order %s is not a permutation of the %zu dims of size %s; list "
                          "each dim once, outermost first (e.g. [0, 2, 3, 1] for channels last)",
                          format_shape(*dim_order).text, rank, format_shape(size).text);
  } else {
    fill_default_dim_order({order, rank});
  }
  if (!resize_or_fail(ctx, out, size)) return out;
  const ArrayRef<DimOrderType> wanted(order, rank);
  if (!has_layout(out, wanted)) {
    SizesType have[kTensorDimensionLimit];
    SizesType want[kTensorDimensionLimit];
    for (size_t i = 0; i < rank; ++i) {
      have[i] = out.dim_order()[i];
      want[i] = order[i];
    }
    ctx.fail(Error::InvalidArgument,
             "out has dim order %s, but %s asks for %s; give out that dim order, which is the one "
             "the program's memory plan gives it",
             format_shape({have, rank}).text,
             dim_order.has_value() ? "dim_order" : "dim_order None (contiguous)",
             format_shape({want, rank}).text);
  }
  return out;
}

}  // namespace kiln::portable::native
