// quantized_decomposed::quantize_per_tensor.out / .Tensor_out (ExecuTorch's quantized library):
// q = clamp(zero_point + round(x / scale), quant_min, quant_max) with one scale and zero point
// for the whole tensor, given as numbers or as one-element tensors (util/quantized/affine.h).
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "kernels/portable/cpu/util/quantized/int8_conv.h"
#include "kernels/portable/cpu/util/quantized/kernels.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {
namespace {

// Wherever this kernel is linked, Method::load may fuse the dequantize -> convolution / linear ->
// quantize chains it ends into int8 calls (runtime/kernel/int8_conv.h): this source provides
// them, so that every library with the quantize operator has them without a call of its own.
const bool kInt8ConvProvided = [] {
  provide_int8_conv_kernels(&portable_int8_conv_kernels());
  return true;
}();

}  // namespace
}  // namespace kiln::portable

namespace kiln::portable::native {

Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale,
                                int64_t zero_point, int64_t quant_min, int64_t quant_max,
                                ScalarType dtype, Tensor& out) {
  if (check_per_tensor_numbers(ctx, scale, zero_point, quant_min, quant_max, dtype)) {
    run_quantize(ctx, input, per_tensor_params(scale, zero_point), {1, 1, input.numel()}, quant_min,
                 quant_max, dtype, out);
  }
  return out;
}

Tensor& quantize_per_tensor_tensor_out(KernelRuntimeContext& ctx, const Tensor& input,
                                       const Tensor& scale, const Tensor& zero_point,
                                       int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                       Tensor& out) {
  if (check_per_tensor_tensors(ctx, scale, zero_point, quant_min, quant_max, dtype)) {
    run_quantize(ctx, input, per_tensor_params(scale, zero_point), {1, 1, input.numel()}, quant_min,
                 quant_max, dtype, out);
  }
  return out;
}

}  // namespace kiln::portable::native
