// scatter_add.out: self with src's elements added in at index positions along a dim.
#include <cstdint>

#include "kernels/portable/cpu/util/index/scatter.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& scatter_add_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                        const Tensor& index, const Tensor& src, Tensor& out) {
  if (!check_scatter_layouts(ctx, self, index, &src, out)) return out;
  return scatter_into(ctx, self, dim, index, &src, nullptr, ScatterReduce::kAdd, out);
}

}  // namespace kiln::portable::native
