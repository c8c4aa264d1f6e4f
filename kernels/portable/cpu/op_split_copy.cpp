// split_copy.Tensor_out: self cut along a dim into pieces of split_size (the last may be
// smaller), one per out.
#include <cstdint>

#include "kernels/portable/cpu/util/shape/shape_kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

void split_copy_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t split_size,
                           int64_t dim, ArrayRef<Tensor> out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, ,
                        "split expects at least a 1-dimensional tensor");
  KILN_KERNEL_CHECK_MSG(ctx, split_size >= 0, InvalidArgument, ,
                        "split expects split_size be non-negative, but got split_size=%lld",
                        static_cast<long long>(split_size));
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return;
  const int64_t n = self.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, split_size != 0 || n == 0, InvalidArgument, ,
                        "split_size can only be 0 if dimension size is 0, but got dimension size "
                        "of %lld",
                        static_cast<long long>(n));
  const int64_t pieces = n == 0 ? 1 : (n - 1) / split_size + 1;
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(out.size()) == pieces, InvalidArgument, ,
                        "split_copy_Tensor_out() expected an out= argument of size %lld, got "
                        "size %zu",
                        static_cast<long long>(pieces), out.size());
  split_into(ctx, self, d, out, [&](size_t i) {
    const int64_t begin = static_cast<int64_t>(i) * split_size;
    return n - begin < split_size ? n - begin : split_size;
  });
}

}  // namespace kiln::portable::native
