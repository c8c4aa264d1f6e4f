// sum.IntList_out and sum.out: sums self over dims (or all of it) in `dtype`, else out's dtype.
#include "kernels/portable/cpu/util/reduce/accumulate.h"

namespace kiln::portable::native {

Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                    bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return accumulate_out(ctx, self, dim, keepdim, dtype, AccumulateKind::kSum, out);
}

Tensor& sum_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
                Tensor& out) {
  return accumulate_out(ctx, self, std::nullopt, false, dtype, AccumulateKind::kSum, out);
}

}  // namespace kiln::portable::native
