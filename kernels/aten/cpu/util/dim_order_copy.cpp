// ATen mode: dim order checks with the portable kernel's messages, then libtorch's copy_.
#include "kernels/aten/cpu/util/dim_order_copy.h"

#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "runtime/core/dim_order.h"

namespace kiln::aten_kernels {
namespace {

// "[0, 2, 3, 1]" for messages.
struct OrderText {
  char text[128];
};

template <typename T>
OrderText format_order(const T* values, size_t size) {
  OrderText result{};
  size_t used = static_cast<size_t>(std::snprintf(result.text, sizeof(result.text), "["));
  for (size_t i = 0; i < size && used < sizeof(result.text); ++i) {
    used +=
        static_cast<size_t>(std::snprintf(result.text + used, sizeof(result.text) - used, "%s%lld",
                                          i == 0 ? "" : ", ", static_cast<long long>(values[i])));
  }
  if (used < sizeof(result.text))
    std::snprintf(result.text + used, sizeof(result.text) - used, "]");
  return result;
}

// Reads the dim_order argument into `order`; false after ctx.fail when it is not a permutation
// of self's dims.
bool read_dim_order(KernelRuntimeContext& ctx, IntArrayRef dim_order, int64_t rank,
                    DimOrderType* order) {
  const OrderText given = format_order(dim_order.data(), dim_order.size());
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(dim_order.size()) == rank, InvalidArgument, false,
                        "dim_order %s has %zu entries, but self has %lld dims; give one entry "
                        "per dim",
                        given.text, dim_order.size(), static_cast<long long>(rank));
  bool seen[kTensorDimensionLimit] = {};
  for (size_t i = 0; i < dim_order.size(); ++i) {
    const int64_t d = dim_order[i];
    KILN_KERNEL_CHECK_MSG(ctx, d >= 0 && d < rank && !seen[d], InvalidArgument, false,
                          "dim_order %s is not a permutation of the dims 0..%lld of self; list "
                          "each dim once, outermost first (e.g. [0, 2, 3, 1] for channels last)",
                          given.text, static_cast<long long>(rank - 1));
    seen[d] = true;
    order[i] = static_cast<DimOrderType>(d);
  }
  return true;
}

// The dense strides `order` gives `sizes`.
bool strides_of(c10::IntArrayRef sizes, const DimOrderType* order, StridesType* strides) {
  const size_t rank = sizes.size();
  return dim_order_to_strides({sizes.data(), rank}, {order, rank}, {strides, rank}) == Error::Ok;
}

}  // namespace

bool has_layout(const Tensor& tensor, const DimOrderType* order) {
  if (tensor.numel() == 0) return true;
  StridesType strides[kTensorDimensionLimit];
  if (!strides_of(tensor.sizes(), order, strides)) return false;
  for (int64_t d = 0; d < tensor.dim(); ++d) {
    if (tensor.size(d) > 1 && tensor.stride(d) != strides[d]) return false;
  }
  return true;
}

bool resize_keeping_dim_order(KernelRuntimeContext& ctx, Tensor& out, c10::IntArrayRef sizes) {
  if (out.sizes().equals(sizes)) return true;
  DimOrderType order[kTensorDimensionLimit];
  const bool same_rank = out.dim() == static_cast<int64_t>(sizes.size());
  if (same_rank && get_dim_order(out, {order, sizes.size()}) != Error::Ok) return false;
  if (!resize_or_fail(ctx, out, sizes)) return false;
  StridesType strides[kTensorDimensionLimit];
  if (same_rank && strides_of(sizes, order, strides)) {
    out.as_strided_(sizes, c10::IntArrayRef(strides, sizes.size()));
  }
  return true;
}

Tensor& copy_to_dim_order(KernelRuntimeContext& ctx, const Tensor& self,
                          std::optional<IntArrayRef> dim_order, Tensor& out) {
  const int64_t rank = self.dim();
  DimOrderType order[kTensorDimensionLimit];
  if (dim_order.has_value()) {
    if (!read_dim_order(ctx, *dim_order, rank, order)) return out;
  } else if (get_dim_order(self, {order, static_cast<size_t>(rank)}) != Error::Ok) {
    ctx.fail(Error::NotSupported, "self has %lld dims; Kiln tensors have at most %zu",
             static_cast<long long>(rank), kTensorDimensionLimit);
    return out;
  }
  try {
    if (!resize_keeping_dim_order(ctx, out, self.sizes())) return out;
    if (!has_layout(out, order)) {
      DimOrderType have[kTensorDimensionLimit];
      (void)get_dim_order(out, {have, static_cast<size_t>(rank)});
      const OrderText wanted = format_order(order, static_cast<size_t>(rank));
      const OrderText actual = format_order(have, static_cast<size_t>(rank));
      if (dim_order.has_value()) {
        ctx.fail(Error::InvalidArgument,
                 "dim_order %s asks for a layout out does not have (out has dim order %s); give "
                 "out that dim order, which is the one the program's memory plan gives it",
                 wanted.text, actual.text);
      } else {
        ctx.fail(Error::InvalidArgument,
                 "dim_order is None, which keeps self's dim order %s, but out has dim order %s; "
                 "give out self's dim order or pass dim_order",
                 wanted.text, actual.text);
      }
      return out;
    }
    if (!out.is_same(self)) out.copy_(self);
  } catch (const c10::Error& error) {
    ctx.fail(Error::InvalidArgument, "%s", error.what_without_backtrace());
  }
  return out;
}

}  // namespace kiln::aten_kernels
