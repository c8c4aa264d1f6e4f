// _log_softmax.out: x - log(sum(e^x)) along `dim`, for floating dtypes, with the max subtracted.
#include <cstdint>

#include "kernels/portable/cpu/util/norm/softmax.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& log_softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        bool half_to_float, Tensor& out) {
  return softmax_common</*kLog=*/true>(ctx, self, dim, half_to_float, out);
}

}  // namespace kiln::portable::native
