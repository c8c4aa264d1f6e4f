// max.dim_max (values and first indices along a dim) and max.unary_out (the whole tensor's
// largest value).
#include <cstdint>
#include <tuple>

#include "kernels/portable/cpu/util/reduce/select_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> max_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                         bool keepdim, Tensor& max, Tensor& max_values) {
  return max_min_dim(ctx, self, dim, keepdim, /*max=*/true, max, max_values);
}

Tensor& max_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return max_min_all(ctx, self, /*max=*/true, out);
}

}  // namespace kiln::portable::native
