// ATen mode: quantized_decomposed::quantize_per_token.out with libtorch's ops
// (util/quantized.h), under the name custom_ops.yaml binds.
#include "kernels/aten/cpu/util/quantized.h"

namespace kiln::portable::native {

Tensor& quantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                               const Tensor& zero_points, int64_t quant_min, int64_t quant_max,
                               ScalarType dtype, Tensor& out) {
  int64_t tokens = 0;
  if (check_per_token(ctx, input, scales, zero_points, quant_min, quant_max, dtype, &tokens)) {
    aten_kernels::quantize_into(ctx, input,
                                aten_kernels::per_token(input, scales, zero_points, tokens),
                                quant_min, quant_max, dtype, out);
  }
  return out;
}

}  // namespace kiln::portable::native
