// mean.out and mean.dtype_out: the sum over dims (or all of it) divided by the element count.
#include "kernels/portable/cpu/util/reduce/accumulate.h"

namespace kiln::portable::native {

Tensor& mean_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                 bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return accumulate_out(ctx, self, dim, keepdim, dtype, AccumulateKind::kMean, out);
}

Tensor& mean_dtype_out(KernelRuntimeContext& ctx, const Tensor& self,
                       std::optional<ScalarType> dtype, Tensor& out) {
  return accumulate_out(ctx, self, std::nullopt, false, dtype, AccumulateKind::kMean, out);
}

}  // namespace kiln::portable::native
