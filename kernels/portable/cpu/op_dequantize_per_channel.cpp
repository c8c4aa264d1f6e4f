// quantized_decomposed::dequantize_per_channel.out (ExecuTorch's quantized library):
// dequantization with one scale (and zero point, zero when none is given) per index along
// `axis`, the form of PT2E's int8 weights (util/quantized/affine.h).
#include <optional>

#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "kernels/portable/cpu/util/quantized/kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& dequantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const Tensor& scales, const std::optional<Tensor>& zero_points,
                                   int64_t axis, int64_t quant_min, int64_t quant_max,
                                   ScalarType dtype, std::optional<ScalarType> out_dtype,
                                   Tensor& out) {
  int64_t dim = 0;
  if (!check_per_channel(ctx, input, scales, zero_points, axis, quant_min, quant_max, dtype,
                         &dim)) {
    return out;
  }
  AffineParams params;
  params.scales = &scales;
  params.zero_points = zero_points.has_value() ? &*zero_points : nullptr;
  run_dequantize(ctx, input, params, blocks_along(input, dim), quant_min, quant_max, dtype,
                 out_dtype, out);
  return out;
}

}  // namespace kiln::portable::native
