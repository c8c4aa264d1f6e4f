// The portable kernels' int8 convolutions and linears, which Method::load fuses dequantize ->
// convolution / linear -> quantize chains into (runtime/kernel/int8_conv.h, docs/quantized.md
// "Int8 calls"): weights packed once at load, activations laid out as gemm rows at each run
// (im2col on int8), the int8 gemm (int8_gemm.h) requantizing as it stores.
#pragma once

#include "runtime/kernel/int8_conv.h"

namespace kiln::portable {

// The kernels provide_int8_conv_kernels() hands the executor.
const Int8ConvKernels& portable_int8_conv_kernels();

}  // namespace kiln::portable
