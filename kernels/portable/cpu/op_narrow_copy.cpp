// narrow_copy.out: a copy of `length` slices of self starting at `start` along one dim.
#include <cstdint>
#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& narrow_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int64_t start,
                        int64_t length, Tensor& out) {
  if (!check_tensor(ctx, self, "self") || !check_default_dim_order(ctx, out, "out")) return out;
  int64_t d = 0;
  if (!wrap_sliced_dim(ctx, "narrow", dim, self.dim(), &d)) return out;
  const int64_t size = self.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, start >= -size && start <= size, InvalidArgument, out,
                        "start out of range (expected to be in range of [%lld, %lld], but got "
                        "%lld)",
                        static_cast<long long>(-size), static_cast<long long>(size),
                        static_cast<long long>(start));
  const int64_t first = start < 0 ? start + size : start;
  KILN_KERNEL_CHECK_MSG(ctx, length >= 0 && first <= size - length, InvalidArgument, out,
                        "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                        static_cast<long long>(first), static_cast<long long>(length),
                        static_cast<long long>(size));
  if (!check_out_dtype_is(ctx, out, self.scalar_type())) return out;
  const ArrayRef<SizesType> sizes = self.sizes();
  SizesType shape[kTensorDimensionLimit];
  for (size_t i = 0; i < sizes.size(); ++i) shape[i] = sizes[i];
  shape[d] = length;
  if (!resize_or_fail(ctx, out, {shape, sizes.size()})) return out;
  const size_t element = self.element_size();
  const int64_t outer = size_product(sizes, 0, d);
  const size_t inner_bytes =
      static_cast<size_t>(size_product(sizes, d + 1, sizes.size())) * element;
  const size_t run = inner_bytes * static_cast<size_t>(length);
  if (run == 0) return out;
  const char* src = self.const_data_ptr<char>() + inner_bytes * static_cast<size_t>(first);
  char* dst = out.mutable_data_ptr<char>();
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + run * o, src + inner_bytes * static_cast<size_t>(size) * o, run);
  }
  return out;
}

}  // namespace kiln::portable::native
