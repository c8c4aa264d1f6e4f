// empty.out: out resized to `size`; its contents are left as they are (unspecified).
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& empty_out(KernelRuntimeContext& ctx, IntArrayRef size,
                  std::optional<MemoryFormat> memory_format, Tensor& out) {
  if (!check_supported_dtype(ctx, out.scalar_type(), "out")) return out;
  // As ATen: out's own layout decides; a requested one (even contiguous) is an error.
  KILN_KERNEL_CHECK_MSG(ctx, !memory_format.has_value(), InvalidArgument, out,
                        "'memory_format' argument is incompatible with 'out' tensor argument; "
                        "leave memory_format unset");
  for (size_t i = 0; i < size.size(); ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, size[i] >= 0, InvalidArgument, out,
                          "Trying to create tensor with negative dimension %lld: %s",
                          static_cast<long long>(size[i]), format_shape(size).text);
  }
  (void)resize_or_fail(ctx, out, size);
  return out;
}

}  // namespace kiln::portable::native
