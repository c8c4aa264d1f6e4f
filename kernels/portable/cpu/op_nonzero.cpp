// nonzero.out: the coordinates of self's nonzero elements (NaN counts, -0.0 does not), one row
// of self.dim() Long values per element in row-major order, out sized to their count. The out
// may be column-major (dim order [1, 0]), as ExecuTorch plans it after torch's own nonzero.
#include <cstdint>
#include <type_traits>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Calls fn(i) for each element i of data[0, n) whose bits under `mask` are not all zero.
template <typename U, typename Fn>
void for_each_nonzero(const U* data, int64_t n, U mask, Fn&& fn) {
  for (int64_t i = 0; i < n; ++i) {
    if ((data[i] & mask) != 0) fn(i);
  }
}

}  // namespace

Tensor& nonzero_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (!check_tensor(ctx, self, "self")) return out;
  KILN_KERNEL_CHECK_MSG(ctx, out.scalar_type() == ScalarType::Long, InvalidArgument, out,
                        "nonzero: Expected out tensor to have scalar type Long but got scalar "
                        "type %s",
                        to_string(out.scalar_type()));
  const int64_t rank = self.dim();
  const int64_t n = self.numel();
  dispatch_by_width(self.element_size(), [&](auto* tag) {
    using U = std::remove_pointer_t<decltype(tag)>;
    // A float is zero when every bit but the sign is: +0.0 and -0.0.
    const U sign = static_cast<U>(U{1} << (8 * sizeof(U) - 1));
    const U mask =
        is_floating_type(self.scalar_type()) ? static_cast<U>(~sign) : static_cast<U>(~U{0});
    const U* data = self.const_data_ptr<U>();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += (data[i] & mask) != 0;
    const SizesType sizes[2] = {count, rank};
    if (!resize_or_fail(ctx, out, {sizes, 2})) return;
    int64_t* dst = out.mutable_data_ptr<int64_t>();
    const int64_t row_stride = out.strides()[0], column_stride = out.strides()[1];
    // Coordinates of element i by an odometer that follows i.
    int64_t coord[kTensorDimensionLimit] = {};
    int64_t at = 0;
    for_each_nonzero(data, n, mask, [&](int64_t i) {
      for (; at < i; ++at) {
        for (int64_t d = rank - 1; d >= 0 && ++coord[d] == self.size(d); --d) coord[d] = 0;
      }
      for (int64_t d = 0; d < rank; ++d) dst[d * column_stride] = coord[d];
      dst += row_stride;
    });
  });
  return out;
}

}  // namespace kiln::portable::native
