// unbind_copy.int_out: self cut along a dim into its slices, one per out, the dim dropped.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

void unbind_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                         ArrayRef<Tensor> out) {
  const int64_t rank = self.dim();
  KILN_KERNEL_CHECK_MSG(ctx, rank > 0, InvalidArgument, ,
                        "Dimension specified as %lld but tensor has no dimensions",
                        static_cast<long long>(dim));
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, rank, &d) || !check_default_dim_order(ctx, self, "self")) return;
  const int64_t n = self.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(out.size()) == n, InvalidArgument, ,
                        "unbind_copy_int_out expected an out= argument of size %lld, got size "
                        "%zu",
                        static_cast<long long>(n), out.size());
  // Check every out first, so a failure leaves them all untouched.
  for (const Tensor& o : out) {
    if (!check_default_dim_order(ctx, o, "out") ||
        !check_out_dtype_is(ctx, o, self.scalar_type())) {
      return;
    }
  }
  SizesType sizes[kTensorDimensionLimit];
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t j = 0, m = 0; j < rank; ++j) {
    if (j == d) continue;
    sizes[m++] = self.size(j);
    (j < d ? outer : inner) *= self.size(j);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    Tensor o = out[i];
    if (!resize_or_fail(ctx, o, {sizes, static_cast<size_t>(rank - 1)})) return;
  }
  if (outer * inner == 0) return;
  const size_t es = self.element_size();
  CopyView view;
  view.push(outer, inner, n * inner);
  view.push(inner, 1, 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const char* src = self.const_data_ptr<char>() + static_cast<int64_t>(i) * inner * es;
    copy_view(ctx, out[i].mutable_data_ptr(), src, view, es);
  }
}

}  // namespace kiln::portable::native
