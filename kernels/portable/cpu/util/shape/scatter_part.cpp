// select_scatter's and slice_scatter's shared body: checks, self copied, src written over the part.
#include "kernels/portable/cpu/util/shape/scatter_part.h"

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/shape/copy.h"

namespace kiln::portable {

Tensor& scatter_part(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src,
                     const TensorPart& part, Tensor& out) {
  if (!check_supported_dtype(ctx, src.scalar_type(), "src")) return out;
  const ArrayRef<SizesType> part_sizes(part.sizes, static_cast<size_t>(part.ndim));
  KILN_KERNEL_CHECK_MSG(ctx, src.sizes().equals(part_sizes), InvalidArgument, out,
                        "expected src to have a size equal to the slice of self. src size = %s, "
                        "slice size = %s",
                        format_shape(src.sizes()).text, format_shape(part_sizes).text);
  if (!check_default_dim_order(ctx, out, "out") ||
      !check_out_dtype_is(ctx, out, self.scalar_type()) ||
      !resize_or_fail(ctx, out, self.sizes())) {
    return out;
  }
  copy_bytes(ctx, self, out);
  CopyView view;
  for (int64_t d = 0; d < part.ndim; ++d) {
    view.push(part.sizes[d], part.strides[d], src.strides()[static_cast<size_t>(d)]);
  }
  char* dst = out.mutable_data_ptr<char>() + part.offset * static_cast<int64_t>(out.element_size());
  convert_copy_view(ctx, dst, out.scalar_type(), src.const_data_ptr(), src.scalar_type(), view);
  return out;
}

}  // namespace kiln::portable
