// all.out (over one dim), all.dims_out (over a list) and all.all_out (over everything): whether
// every element is nonzero, into a Bool out or a Byte out holding 0/1.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/reduce/select_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& all_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                Tensor& out) {
  return any_all(ctx, self, IntArrayRef(&dim, 1), keepdim, /*any=*/false, out);
}

Tensor& all_dims_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<IntArrayRef> dim,
                     bool keepdim, Tensor& out) {
  return any_all(ctx, self, dim, keepdim, /*any=*/false, out);
}

Tensor& all_all_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return any_all(ctx, self, std::nullopt, false, /*any=*/false, out);
}

}  // namespace kiln::portable::native
