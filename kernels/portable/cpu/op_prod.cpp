// prod.int_out and prod.out: the product over one dim (or all of it) in `dtype`, else out's dtype.
#include "kernels/portable/cpu/util/reduce/accumulate.h"

namespace kiln::portable::native {

Tensor& prod_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                     std::optional<ScalarType> dtype, Tensor& out) {
  return accumulate_out(ctx, self, IntArrayRef(&dim, 1), keepdim, dtype, AccumulateKind::kProd,
                        out);
}

Tensor& prod_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ScalarType> dtype,
                 Tensor& out) {
  return accumulate_out(ctx, self, std::nullopt, false, dtype, AccumulateKind::kProd, out);
}

}  // namespace kiln::portable::native
