// argmax.out: the first index of the largest value (of the flattened self without a dim), NaN
// winning.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/reduce/select_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& argmax_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim,
                   bool keepdim, Tensor& out) {
  return arg_max_min(ctx, self, dim, keepdim, /*max=*/true, out);
}

}  // namespace kiln::portable::native
