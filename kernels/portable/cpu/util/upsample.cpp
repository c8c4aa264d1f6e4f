// The argument checks of the 2-d upsampling kernels.
#include "kernels/portable/cpu/util/upsample.h"

#include "kernels/portable/cpu/util/checks.h"

namespace kiln::portable {

bool check_upsample(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef output_size,
                    const char* op, const Tensor& out, SizesType* sizes) {
  if (!check_tensor(ctx, self, "self") || !check_tensor(ctx, out, "out")) return false;
  KILN_KERNEL_CHECK_MSG(ctx, output_size.size() == 2, InvalidArgument, false,
                        "It is expected output_size equals to 2, but got size %zu",
                        output_size.size());
  KILN_KERNEL_CHECK_MSG(ctx, self.dim() == 4, InvalidArgument, false,
                        "It is expected input_size equals to 4, but got size %lld",
                        static_cast<long long>(self.dim()));
  KILN_KERNEL_CHECK_MSG(
      ctx, self.size(2) > 0 && self.size(3) > 0 && output_size[0] > 0 && output_size[1] > 0,
      InvalidArgument, false,
      "Input and output sizes should be greater than 0, but got input (H: %lld, W: %lld) output "
      "(H: %lld, W: %lld)",
      static_cast<long long>(self.size(2)), static_cast<long long>(self.size(3)),
      static_cast<long long>(output_size[0]), static_cast<long long>(output_size[1]));
  KILN_KERNEL_CHECK_MSG(ctx, self.size(1) > 0, InvalidArgument, false,
                        "Non-empty 4D data tensor expected but got a tensor with sizes %s",
                        format_shape(self.sizes()).text);
  const ScalarType dtype = self.scalar_type();
  KILN_KERNEL_CHECK_MSG(ctx, is_floating_type(dtype) || dtype == ScalarType::Byte, InvalidType,
                        false, "\"%s\" not implemented for '%s'", op, to_string(dtype));
  if (!check_out_dtype_is(ctx, out, dtype)) return false;
  sizes[0] = self.size(0);
  sizes[1] = self.size(1);
  sizes[2] = output_size[0];
  sizes[3] = output_size[1];
  return true;
}

}  // namespace kiln::portable
