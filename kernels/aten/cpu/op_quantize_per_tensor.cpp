// ATen mode: quantized_decomposed::quantize_per_tensor.out / .Tensor_out with libtorch's ops
// (util/quantized.h), under the names custom_ops.yaml binds.
#include "kernels/aten/cpu/util/quantized.h"

namespace kiln::portable::native {

Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                ScalarType dtype, Tensor& out) {
  if (check_per_tensor_numbers(ctx, scale, zero_point, quant_min, quant_max, dtype)) {
    aten_kernels::quantize_into(ctx, input,
                                aten_kernels::per_tensor(scale, zero_point, input.numel()),
                                quant_min, quant_max, dtype, out);
  }
  return out;
}

Tensor& quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                       const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                       Tensor& out) {
  if (check_per_tensor_tensors(ctx, scale, zero_point, quant_min, quant_max, dtype)) {
    aten_kernels::quantize_into(ctx, input,
                                aten_kernels::per_tensor(scale, zero_point, input.numel()),
                                quant_min, quant_max, dtype, out);
  }
  return out;
}

}  // namespace kiln::portable::native
