// constant_pad_nd.out: pads (or, with negative pads, crops) the trailing dims with a constant.
#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/scalars.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "kernels/portable/cpu/util/shape/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& constant_pad_nd_out(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef pad,
                            const Scalar& value, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return out;
  const int64_t rank = self.dim();
  const int64_t pairs = static_cast<int64_t>(pad.size()) / 2;
  KILN_KERNEL_CHECK_MSG(ctx, pad.size() % 2 == 0, InvalidArgument, out,
                        "Length of pad must be even but instead it equals %zu", pad.size());
  KILN_KERNEL_CHECK_MSG(ctx, pairs <= rank, InvalidArgument, out,
                        "Length of pad should be no more than twice the number of dimensions of "
                        "the input. Pad length is %zu while the input has %lld dimensions.",
                        pad.size(), static_cast<long long>(rank));
  SizesType sizes[kTensorDimensionLimit];
  int64_t before[kTensorDimensionLimit];  // leading pad per dim (negative crops)
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t pair = rank - 1 - d;  // pad[0], pad[1] belong to the last dim
    before[d] = pair < pairs ? pad[2 * pair] : 0;
    const int64_t after = pair < pairs ? pad[2 * pair + 1] : 0;
    sizes[d] = self.size(d) + before[d] + after;
    // ATen narrows by the negative pads first, then pads by the positive ones.
    const int64_t kept = self.size(d) + (before[d] < 0 ? before[d] : 0) + (after < 0 ? after : 0);
    KILN_KERNEL_CHECK_MSG(ctx, kept >= 0, InvalidArgument, out,
                          "narrow(): length must be non-negative. (dimension %lld of size %lld "
                          "cannot take negative padding %lld and %lld)",
                          static_cast<long long>(d), static_cast<long long>(self.size(d)),
                          static_cast<long long>(before[d]), static_cast<long long>(after));
  }
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, fill_value_fits(value, dtype), InvalidArgument, out,
                        "value cannot be converted to type %s without overflow", to_string(dtype));
  if (!check_out_dtype_is(ctx, out, dtype)) return out;
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(rank)})) return out;
  const int64_t total = out.numel();
  if (total == 0) return out;

  // Fill everything with the value, then copy the overlap of input and output row by row.
  const size_t size = element_size(dtype);
  alignas(8) unsigned char fill[8];
  store_fill_value(value, dtype, fill);
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  fill_elements(dst, fill, size, total);
  if (rank == 0) {
    std::memcpy(dst, self.const_data_ptr(), size);
    return out;
  }
  // Per dim: the overlap covers input indices [lo, hi) at output index + before.
  int64_t lo[kTensorDimensionLimit] = {}, hi[kTensorDimensionLimit] = {};
  for (int64_t d = 0; d < rank; ++d) {
    lo[d] = before[d] < 0 ? -before[d] : 0;
    const int64_t end = sizes[d] - before[d];
    hi[d] = end < self.size(d) ? end : self.size(d);
    if (hi[d] <= lo[d]) return out;
  }
  const char* src = static_cast<const char*>(self.const_data_ptr());
  const int64_t row = hi[rank - 1] - lo[rank - 1];
  int64_t index[kTensorDimensionLimit];
  for (int64_t d = 0; d < rank; ++d) index[d] = lo[d];
  while (true) {
    int64_t in_offset = 0, out_offset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      in_offset = in_offset * self.size(d) + index[d];
      out_offset = out_offset * sizes[d] + index[d] + before[d];
    }
    std::memcpy(dst + out_offset * size, src + in_offset * size, static_cast<size_t>(row) * size);
    int64_t d = rank - 2;
    while (d >= 0 && ++index[d] == hi[d]) {
      index[d] = lo[d];
      --d;
    }
    if (d < 0) break;
  }
  return out;
}

}  // namespace kiln::portable::native
