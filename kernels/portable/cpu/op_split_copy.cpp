// split_copy and split_with_sizes_copy: self cut along a dim into consecutive pieces, one per out.
#include <cstdint>

#include "kernels/portable/cpu/util/checks.h"
#include "kernels/portable/cpu/util/copy.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Piece i of dim d has size piece_size(i); each out gets its piece. Checks everything first so a
// failure leaves every out untouched.
template <typename PieceSize>
void split_into(KernelRuntimeContext& ctx, const Tensor& self, int64_t d, ArrayRef<Tensor> out,
                PieceSize piece_size) {
  if (!check_default_dim_order(ctx, self, "self")) return;
  for (const Tensor& o : out) {
    if (!check_default_dim_order(ctx, o, "out") ||
        !check_out_dtype_is(ctx, o, self.scalar_type())) {
      return;
    }
  }
  const int64_t rank = self.dim();
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t j = 0; j < rank; ++j) sizes[j] = self.size(j);
  for (size_t i = 0; i < out.size(); ++i) {
    Tensor o = out[i];
    sizes[d] = piece_size(i);
    if (!resize_or_fail(ctx, o, {sizes, static_cast<size_t>(rank)})) return;
  }
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t j = 0; j < d; ++j) outer *= self.size(j);
  for (int64_t j = d + 1; j < rank; ++j) inner *= self.size(j);
  const int64_t es = static_cast<int64_t>(self.element_size());
  const char* src = self.const_data_ptr<char>();
  int64_t offset = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t width = piece_size(i) * inner;
    if (out[i].numel() > 0) {
      CopyView view;
      view.push(outer, width, self.size(d) * inner);
      view.push(width, 1, 1);
      copy_view(out[i].mutable_data_ptr(), src + offset * inner * es, view,
                static_cast<size_t>(es));
    }
    offset += piece_size(i);
  }
}

}  // namespace

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

void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self,
                               IntArrayRef split_sizes, int64_t dim, ArrayRef<Tensor> out) {
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() > 0, InvalidArgument, ,
                        "split_with_sizes expects at least a 1-dimensional tensor");
  int64_t d = 0;
  if (!wrap_dim(ctx, dim, self.dim(), &d)) return;
  const int64_t n = self.size(d);
  int64_t total = 0;
  for (size_t i = 0; i < split_sizes.size(); ++i) {
    KILN_KERNEL_CHECK_MSG(ctx, split_sizes[i] >= 0, InvalidArgument, ,
                          "split_with_sizes expects split_sizes have only non-negative entries, "
                          "but got split_sizes=%s",
                          format_shape(split_sizes).text);
    total += split_sizes[i];
  }
  KILN_KERNEL_CHECK_MSG(ctx, total == n, InvalidArgument, ,
                        "split_with_sizes expects split_sizes to sum exactly to %lld (input "
                        "tensor's size at dimension %lld), but got split_sizes=%s",
                        static_cast<long long>(n), static_cast<long long>(d),
                        format_shape(split_sizes).text);
  KILN_KERNEL_CHECK_MSG(ctx, out.size() == split_sizes.size(), InvalidArgument, ,
                        "split_with_sizes_copy_out expected an out= argument of size %zu, got "
                        "size %zu",
                        split_sizes.size(), out.size());
  split_into(ctx, self, d, out, [&](size_t i) { return split_sizes[i]; });
}

}  // namespace kiln::portable::native
