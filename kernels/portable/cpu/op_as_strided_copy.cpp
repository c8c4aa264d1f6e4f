// as_strided_copy.out: the elements of self's storage that sizes, strides and a storage offset
// address, copied out contiguously. A Kiln tensor carries no storage offset: self's data is its
// storage, so storage_offset (0 when None) counts elements from self's first one.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The number of elements of storage the view reaches (0 when it is empty), or -1 when that
// overflows.
int64_t storage_needed(IntArrayRef size, IntArrayRef stride, int64_t offset) {
  int64_t last = offset;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == 0) return 0;
    int64_t reach = 0;
    if (__builtin_mul_overflow(size[d] - 1, stride[d], &reach) ||
        __builtin_add_overflow(last, reach, &last)) {
      return -1;
    }
  }
  return last == INT64_MAX ? -1 : last + 1;
}

}  // namespace

Tensor& as_strided_copy_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef size,
                            IntArrayRef stride, std::optional<int64_t> storage_offset,
                            Tensor& out) {
  KILN_KERNEL_CHECK_MSG(ctx, size.size() == stride.size(), InvalidArgument, out,
                        "mismatch in length of strides and shape (size %s, stride %s)",
                        format_shape(size).text, format_shape(stride).text);
  if (!check_rank_limit(ctx, size.size(), "size")) return out;
  for (size_t d = 0; d < size.size(); ++d) {
    KILN_KERNEL_CHECK_MSG(ctx, size[d] >= 0, InvalidArgument, out,
                          "Trying to create tensor with negative dimension %lld: %s",
                          static_cast<long long>(size[d]), format_shape(size).text);
    KILN_KERNEL_CHECK_MSG(ctx, stride[d] >= 0, InvalidArgument, out,
                          "as_strided: Negative strides are not supported at the moment, got "
                          "strides: %s",
                          format_shape(stride).text);
  }
  const int64_t offset = storage_offset.value_or(0);
  KILN_KERNEL_CHECK_MSG(ctx, offset >= 0, InvalidArgument, out,
                        "Tensor: invalid storage offset %lld", static_cast<long long>(offset));
  const int64_t needed = storage_needed(size, stride, offset);
  KILN_KERNEL_CHECK_MSG(ctx, needed >= 0 && needed <= self.numel(), InvalidArgument, out,
                        "as_strided: sizes %s, strides %s and storage offset %lld reach past the "
                        "%lld elements of self (its data is the storage the view addresses)",
                        format_shape(size).text, format_shape(stride).text,
                        static_cast<long long>(offset), static_cast<long long>(self.numel()));
  if (!check_default_dim_order(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, self.scalar_type()) || !resize_or_fail(ctx, out, size)) {
    return out;
  }
  copy_strided_to_out(ctx, self, size.data(), stride.data(), static_cast<int64_t>(size.size()),
                      offset, out);
  return out;
}

}  // namespace kiln::portable::native
