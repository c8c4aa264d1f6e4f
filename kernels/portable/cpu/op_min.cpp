// min.dim_min (values and first indices along a dim) and min.unary_out (the whole tensor's
// smallest value).
#include <cstdint>
#include <tuple>

#include "kernels/portable/cpu/util/reduce/select_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> min_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& min, Tensor& min_indices) {
  return max_min_dim(ctx, self, dim, keepdim, /*max=*/false, min, min_indices);
}

Tensor& min_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return max_min_all(ctx, self, /*max=*/false, out);
}

}  // namespace kiln::portable::native
