// copy_ and copy.out: src, broadcast to self's shape and converted to self's dtype, written into
// self in place (the last instruction of a program that mutates a buffer writes the buffer back
// with it), or into out, which gets self's shape and must have self's dtype.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& copy_(KernelRuntimeContext& ctx, Tensor& self, const Tensor& src, bool non_blocking) {
  (void)non_blocking;  // a host-to-host copy is always synchronous
  if (!check_supported_dtype(ctx, self.scalar_type(), "self") ||
      !check_supported_dtype(ctx, src.scalar_type(), "src")) {
    return self;
  }
  const int64_t rank = self.dim();
  const int64_t extra = rank - src.dim();  // leading dims of self that src lacks
  KILN_KERNEL_CHECK_MSG(ctx, extra >= 0, InvalidArgument, self,
                        "src of shape %s has more dims than self of shape %s; src must "
                        "broadcast to self's shape, which copy_ does not change",
                        format_shape(src.sizes()).text, format_shape(self.sizes()).text);
  int64_t src_strides[kTensorDimensionLimit];
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t s = d - extra;
    if (s < 0 || src.size(s) == 1) {
      src_strides[d] = 0;
      continue;
    }
    KILN_KERNEL_CHECK_MSG(ctx, src.size(s) == self.size(d), InvalidArgument, self,
                          "the size of src (%lld) must match the size of self (%lld) at "
                          "non-singleton dimension %lld (src shape %s, self shape %s); src must "
                          "broadcast to self's shape",
                          static_cast<long long>(src.size(s)), static_cast<long long>(self.size(d)),
                          static_cast<long long>(d), format_shape(src.sizes()).text,
                          format_shape(self.sizes()).text);
    src_strides[d] = src.strides()[static_cast<size_t>(s)];
  }
  if (tensors_overlap(self, src)) {
    const bool same = self.const_data_ptr() == src.const_data_ptr() &&
                      self.scalar_type() == src.scalar_type() && self.sizes().equals(src.sizes()) &&
                      self.strides().equals(src.strides());
    if (same) return self;  // copying a tensor onto itself
    ctx.fail(Error::InvalidArgument,
             "some elements of src and self refer to a single memory location; pass a "
             "copy of src (src.clone())");
    return self;
  }
  CopyView view;
  view_in_dim_order(self, src_strides, &view);
  convert_copy_view(ctx, self.mutable_data_ptr(), self.scalar_type(), src.const_data_ptr(),
                    src.scalar_type(), view);
  return self;
}

Tensor& copy_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src,
                 bool non_blocking, Tensor& out) {
  // out takes self's place: only self's shape and dtype matter, not its values.
  if (!check_supported_dtype(ctx, self.scalar_type(), "self") ||
      !check_out_dtype_is(ctx, out, self.scalar_type()) ||
      !resize_or_fail(ctx, out, self.sizes())) {
    return out;
  }
  return copy_(ctx, out, src, non_blocking);
}

}  // namespace kiln::portable::native
