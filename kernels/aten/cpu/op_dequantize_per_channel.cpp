// ATen mode: quantized_decomposed::dequantize_per_channel.out with libtorch's ops
// (util/quantized.h), under the name custom_ops.yaml binds.
#include "kernels/aten/cpu/util/quantized.h"

namespace kiln::portable::native {

Tensor& dequantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const Tensor& scales, const std::optional<Tensor>& zero_points,
                                   int64_t axis, int64_t quant_min, int64_t quant_max,
                                   ScalarType dtype, std::optional<ScalarType> out_dtype,
                                   Tensor& out) {
  int64_t dim = 0;
  if (check_per_channel(ctx, input, scales, zero_points, axis, quant_min, quant_max, dtype, &dim)) {
    aten_kernels::dequantize_into(ctx, input,
                                  aten_kernels::per_channel(input, scales, zero_points, dim),
                                  quant_min, quant_max, dtype, out_dtype, out);
  }
  return out;
}

}  // namespace kiln::portable::native
