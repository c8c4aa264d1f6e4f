// Copies into the layout a dim order names: argument checks with fixes, then one strided copy.
#include "kernels/portable/cpu/util/shape/dim_order_copy.h"

#include <cstddef>
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/core/dim_order.h"

namespace kiln::portable {
namespace {

// "[0, 2, 3, 1]" for messages.
ShapeText format_dim_order(ArrayRef<DimOrderType> dim_order) {
  SizesType values[kTensorDimensionLimit];
  for (size_t i = 0; i < dim_order.size(); ++i) values[i] = dim_order[i];
  return format_shape({values, dim_order.size()});
}

// Reads the dim_order argument into `order` (self's rank entries); false after ctx.fail when it
// is not a permutation of self's dims.
bool read_dim_order(KernelRuntimeContext& ctx, IntArrayRef dim_order, int64_t rank,
                    DimOrderType* order) {
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(dim_order.size()) == rank, InvalidArgument, false,
                        "dim_order %s has %zu entries, but self has %lld dims; give one entry "
                        "per dim",
                        format_shape(dim_order).text, dim_order.size(),
                        static_cast<long long>(rank));
  bool seen[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dim_order.size(); ++i) {
    const int64_t d = dim_order[i];
    KILN_KERNEL_CHECK_MSG(ctx, d >= 0 && d < rank && !seen[d], InvalidArgument, false,
                          "dim_order %s is not a permutation of the dims 0..%lld of self; list "
                          "each dim once, outermost first (e.g. [0, 2, 3, 1] for channels last)",
                          format_shape(dim_order).text, static_cast<long long>(rank - 1));
    seen[d] = true;
    order[i] = static_cast<DimOrderType>(d);
  }
  return true;
}

// Whether out's memory is laid out as `order` lays out out's shape. Dims of size 1 take no part:
// their stride never moves to another element, so e.g. a [2, 1, 3, 3] tensor is both contiguous
// and channels last; and an empty tensor has every layout.
bool has_layout(const Tensor& out, ArrayRef<DimOrderType> order) {
  if (out.numel() == 0) return true;
  StridesType strides[kTensorDimensionLimit];
  const size_t rank = order.size();
  if (dim_order_to_strides(out.sizes(), order, {strides, rank}) != Error::Ok) return false;
  for (size_t d = 0; d < rank; ++d) {
    if (out.sizes()[d] > 1 && out.strides()[d] != strides[d]) return false;
  }
  return true;
}

}  // namespace

Tensor& copy_to_dim_order(KernelRuntimeContext& ctx, const Tensor& self,
                          std::optional<IntArrayRef> dim_order, Tensor& out) {
  if (!check_supported_dtype(ctx, self.scalar_type(), "self") ||
      !check_supported_dtype(ctx, out.scalar_type(), "out")) {
    return out;
  }
  const int64_t rank = self.dim();
  DimOrderType order[kTensorDimensionLimit];
  if (dim_order.has_value()) {
    if (!read_dim_order(ctx, *dim_order, rank, order)) return out;
  } else {
    for (int64_t i = 0; i < rank; ++i) order[i] = self.dim_order()[static_cast<size_t>(i)];
  }
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  const ArrayRef<DimOrderType> wanted(order, static_cast<size_t>(rank));
  if (!has_layout(out, wanted)) {
    if (dim_order.has_value()) {
      ctx.fail(Error::InvalidArgument,
               "dim_order %s asks for a layout out does not have (out has dim order %s); give "
               "out that dim order, which is the one the program's memory plan gives it",
               format_dim_order(wanted).text, format_dim_order(out.dim_order()).text);
    } else {
      ctx.fail(Error::InvalidArgument,
               "dim_order is None, which keeps self's dim order %s, but out has dim order %s; "
               "give out self's dim order or pass dim_order",
               format_dim_order(wanted).text, format_dim_order(out.dim_order()).text);
    }
    return out;
  }
  if (out.const_data_ptr() == self.const_data_ptr() && out.scalar_type() == self.scalar_type() &&
      has_layout(self, wanted)) {
    return out;  // out is self
  }
  int64_t src_strides[kTensorDimensionLimit];
  for (int64_t d = 0; d < rank; ++d) src_strides[d] = self.strides()[static_cast<size_t>(d)];
  CopyView view;
  view_in_dim_order(out, src_strides, &view);
  convert_copy_view(ctx, out.mutable_data_ptr(), out.scalar_type(), self.const_data_ptr(),
                    self.scalar_type(), view);
  return out;
}

}  // namespace kiln::portable
