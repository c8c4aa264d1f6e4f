// view_copy and _unsafe_view: self's elements in a new shape (one size may be -1 and is inferred).
#include <cstdint>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Resolves `size` against `numel` into `shape` as ATen's infer_size does; false after ctx.fail.
bool infer_shape(KernelRuntimeContext& ctx, IntArrayRef size, int64_t numel, SizesType* shape) {
  int64_t known = 1;
  int64_t inferred = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      KILN_KERNEL_CHECK_MSG(ctx, inferred < 0, InvalidArgument, false,
                            "only one dimension can be inferred: size %s has -1 at %lld and "
                            "%zu",
                            format_shape(size).text, static_cast<long long>(inferred), i);
      inferred = static_cast<int64_t>(i);
    } else {
      KILN_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, false,
                            "invalid shape dimension %lld at index %zu of shape %s",
                            static_cast<long long>(size[i]), i, format_shape(size).text);
      KILN_KERNEL_CHECK_MSG(ctx, size[i] == 0 || known <= INT64_MAX / size[i], InvalidArgument,
                            false,
                            "shape '%s' is invalid for input of size %lld (its element count "
                            "overflows int64)",
                            format_shape(size).text, static_cast<long long>(numel));
      known *= size[i];
    }
    shape[i] = size[i];
  }
  const bool fits = numel == known || (inferred >= 0 && known > 0 && numel % known == 0);
  KILN_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, false,
                        "shape '%s' is invalid for input of size %lld", format_shape(size).text,
                        static_cast<long long>(numel));
  if (inferred >= 0) {
    KILN_KERNEL_CHECK_MSG(ctx, known != 0, InvalidArgument, false,
                          "cannot reshape tensor of 0 elements into shape %s because the "
                          "unspecified dimension size -1 can be any value and is ambiguous",
                          format_shape(size).text);
    shape[inferred] = numel / known;
  }
  return true;
}

}  // namespace

Tensor& view_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size,
                      Tensor& out) {
  if (!check_default_dim_order(ctx, self, "self") || !check_default_dim_order(ctx, out, "out")) {
    return out;
  }
  KILN_KERNEL_CHECK_MSG(ctx, size.size() <= kTensorDimensionLimit, InvalidArgument, out,
                        "size has %zu dims; tensors have at most %zu", size.size(),
                        kTensorDimensionLimit);
  SizesType shape[kTensorDimensionLimit];
  if (!infer_shape(ctx, size, self.numel(), shape)) return out;
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  if (!resize_or_fail(ctx, out, {shape, size.size()})) return out;
  copy_bytes(self, out);
  return out;
}

Tensor& _unsafe_view_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size,
                         Tensor& out) {
  return view_copy_out(ctx, self, size, out);
}

}  // namespace kiln::portable::native
