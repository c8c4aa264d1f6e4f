// ATen mode: quantized_decomposed::quantize_per_channel.out with libtorch's ops
// (util/quantized.h), under the name custom_ops.yaml binds.
#include "kernels/aten/cpu/util/quantized.h"

namespace kiln::portable::native {

Tensor& quantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                 Tensor& out) {
  int64_t dim = 0;
  if (check_per_channel(ctx, input, scales, zero_points, axis, quant_min, quant_max, dtype, &dim)) {
    aten_kernels::quantize_into(ctx, input,
                                aten_kernels::per_channel(input, scales, zero_points, dim),
                                quant_min, quant_max, dtype, out);
  }
  return out;
}

}  // namespace kiln::portable::native
