// diagonal_copy.out: the diagonal of self's (dim1, dim2) planes, shifted by `offset` (above the
// main diagonal when positive), copied out as a last dim after self's other dims.
#include <cstdint>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& diagonal_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t offset,
                          int64_t dim1, int64_t dim2, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d1 = 0;
  int64_t d2 = 0;
  if (!wrap_dim(ctx, dim1, rank, &d1) || !wrap_dim(ctx, dim2, rank, &d2)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, d1 != d2, InvalidArgument, out,
                        "diagonal dimensions cannot be identical %lld, %lld",
                        static_cast<long long>(dim1), static_cast<long long>(dim2));
  const int64_t rows = self.size(d1);
  const int64_t cols = self.size(d2);
  // Element (i, i + offset) for offset >= 0, (i - offset, i) otherwise; written so that no
  // offset overflows.
  int64_t length = 0;
  if (offset >= 0) {
    length = offset >= cols ? 0 : (rows < cols - offset ? rows : cols - offset);
  } else {
    length = offset <= -rows ? 0 : (rows + offset < cols ? rows + offset : cols);
  }
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  SizesType sizes[kTensorDimensionLimit];
  int64_t src_strides[kTensorDimensionLimit];
  int64_t m = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == d1 || d == d2) continue;
    sizes[m] = self.size(d);
    src_strides[m] = strides[d];
    ++m;
  }
  sizes[m] = length;
  src_strides[m] = strides[d1] + strides[d2];
  ++m;
  if (!prepare_copy_out(ctx, self, out, {sizes, static_cast<size_t>(m)})) return out;
  const int64_t start =
      length == 0 ? 0 : (offset >= 0 ? offset * strides[d2] : -offset * strides[d1]);
  copy_strided_to_out(ctx, self, sizes, src_strides, m, start, out);
  return out;
}

}  // namespace kiln::portable::native
