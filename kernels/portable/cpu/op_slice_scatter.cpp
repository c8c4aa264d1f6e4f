// slice_scatter.out: a copy of self with a strided range of one dim replaced by src (of the
// range's shape), converted to self's dtype.
#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "kernels/portable/cpu/util/shape/scatter_part.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& slice_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src,
                          int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                          int64_t step, Tensor& out) {
  if (!check_tensor(ctx, self, "self")) return out;
  const int64_t rank = self.dim();
  int64_t d = 0;
  if (!wrap_sliced_dim(ctx, "slice", dim, rank, &d)) return out;
  KILN_KERNEL_CHECK_MSG(ctx, step > 0, InvalidArgument, out, "slice step must be positive");
  // Python's slice clamping, as ATen does it.
  const int64_t n = self.size(d);
  int64_t first = start.value_or(0);
  int64_t last = end.value_or(INT64_MAX);
  if (first < 0) first += n;
  if (last < 0) last += n;
  first = first < 0 ? 0 : (first > n ? n : first);
  last = last < first ? first : (last > n ? n : last);
  const int64_t length = last > first ? (last - first - 1) / step + 1 : 0;
  int64_t strides[kTensorDimensionLimit];
  contiguous_strides(self.sizes(), strides);
  TensorPart part;
  part.ndim = rank;
  for (int64_t i = 0; i < rank; ++i) {
    part.sizes[i] = i == d ? length : self.size(i);
    part.strides[i] = i == d ? strides[i] * step : strides[i];
  }
  part.offset = length > 0 ? first * strides[d] : 0;
  return scatter_part(ctx, self, src, part, out);
}

}  // namespace kiln::portable::native
