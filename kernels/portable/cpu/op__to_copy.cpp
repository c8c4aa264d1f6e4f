// _to_copy: self converted to out's dtype (torch's copy_ casts); memory_format as ATen checks it.
// Large tensors convert on the context's threads.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/core/tensor_options.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& _to_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                     std::optional<MemoryFormat> memory_format, Tensor& out) {
  (void)non_blocking;  // a host-to-host copy is always synchronous
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  if (!check_memory_format(ctx, memory_format, self)) return out;
  if (!resize_or_fail(ctx, out, self.sizes())) return out;
  if (out.const_data_ptr() == self.const_data_ptr() && out.scalar_type() == self.scalar_type()) {
    return out;
  }
  // Chunks of the element range on ctx's threads, each an ordinary convert_copy.
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  const char* src = static_cast<const char*>(self.const_data_ptr());
  const size_t dst_size = out.element_size();
  const size_t src_size = self.element_size();
  parallel_for(
      ctx, 0, self.numel(), kElementwiseGrain,
      [&](int64_t begin, int64_t end) {
        convert_copy(dst + begin * dst_size, out.scalar_type(), src + begin * src_size,
                     self.scalar_type(), end - begin);
      },
      kParallelAlign);
  return out;
}

}  // namespace kiln::portable::native
