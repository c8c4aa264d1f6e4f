// quantized_decomposed::quantize_per_channel.out (ExecuTorch's quantized library): quantization
// with one scale and zero point per index along `axis` (util/quantized/affine.h).
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "kernels/portable/cpu/util/quantized/kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& quantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                 const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                 Tensor& out) {
  int64_t dim = 0;
  if (!check_per_channel(ctx, input, scales, zero_points, axis, quant_min, quant_max, dtype,
                         &dim)) {
    return out;
  }
  AffineParams params;
  params.scales = &scales;
  params.zero_points = &zero_points;
  run_quantize(ctx, input, params, blocks_along(input, dim), quant_min, quant_max, dtype, out);
  return out;
}

}  // namespace kiln::portable::native
