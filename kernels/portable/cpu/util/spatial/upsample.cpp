// The argument checks of the 2-d upsampling kernels.
#include "kernels/portable/cpu/util/spatial/upsample.h"

#include <cmath>

#include "kernels/portable/cpu/util/common/checks.h"

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

bool upsample_vec_size(KernelRuntimeContext& ctx, const Tensor& input,
                       std::optional<IntArrayRef> output_size,
                       std::optional<ArrayRef<double>> scale_factors, SizesType* size,
                       std::optional<double>* scales) {
  KILN_KERNEL_CHECK_MSG(ctx, output_size.has_value() != scale_factors.has_value(), InvalidArgument,
                        false, "Must specify exactly one of output_size and scale_factors");
  KILN_KERNEL_CHECK_MSG(ctx, input.dim() == 4, InvalidArgument, false,
                        "It is expected input_size equals to 4, but got size %lld",
                        static_cast<long long>(input.dim()));
  if (output_size.has_value()) {
    KILN_KERNEL_CHECK_MSG(ctx, output_size->size() == 2, InvalidArgument, false,
                          "It is expected output_size equals to 2, but got size %zu",
                          output_size->size());
    size[0] = (*output_size)[0];
    size[1] = (*output_size)[1];
    scales[0] = scales[1] = std::nullopt;
    return true;
  }
  KILN_KERNEL_CHECK_MSG(ctx, scale_factors->size() == 2, InvalidArgument, false,
                        "It is expected scale_factors to have 2 entries (H, W), but got %zu",
                        scale_factors->size());
  for (int i = 0; i < 2; ++i) {
    const double factor = (*scale_factors)[i];
    const double scaled = static_cast<double>(input.size(2 + i)) * factor;
    // Beyond 2^62 no tensor fits anyway; this also keeps the conversion defined.
    KILN_KERNEL_CHECK_MSG(ctx, std::isfinite(scaled) && std::fabs(scaled) < 0x1p62, InvalidArgument,
                          false,
                          "value cannot be converted to type int64_t without overflow: input "
                          "size %lld times scale factor %g",
                          static_cast<long long>(input.size(2 + i)), factor);
    size[i] = static_cast<SizesType>(std::floor(scaled));
    scales[i] = factor;
  }
  return true;
}

}  // namespace kiln::portable
