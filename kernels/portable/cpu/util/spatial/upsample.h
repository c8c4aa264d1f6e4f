// Checks and helpers upsample_nearest2d and upsample_bilinear2d share: NCHW resampling with
// ATen's index math.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/cpu/util/common/dtypes.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// Output columns handled per pass, so per-column source indices live on the stack.
constexpr int64_t kUpsampleColumns = 256;

// Input pixels per output pixel: 1 / scale when a positive scale is given, else in / out.
template <typename T>
T scale_of(std::optional<double> scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0 ? static_cast<T>(1.0 / *scale)
                                         : static_cast<T>(in) / static_cast<T>(out);
}

// The checks of both ops (`op` names the op); fills `sizes` with the output shape. False after
// ctx.fail.
bool check_upsample(KernelRuntimeContext& ctx, const Tensor& self, IntArrayRef output_size,
                    const char* op, const Tensor& out, SizesType* sizes);

// The .vec overloads' output size: output_size as given, or each input size times its scale
// factor, rounded down (exactly one of the two; the factors become the scales). Fills `size` (2
// entries) and `scales`; false after ctx.fail.
bool upsample_vec_size(KernelRuntimeContext& ctx, const Tensor& input,
                       std::optional<IntArrayRef> output_size,
                       std::optional<ArrayRef<double>> scale_factors, SizesType* size,
                       std::optional<double>* scales);

// Calls f(T{}) with the element type of an upsampling dtype (Byte or a floating type).
template <typename F>
void dispatch_upsample(ScalarType dtype, F&& f) {
  dispatch_element_type(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, uint8_t> || !std::is_integral_v<T>) f(T{});
  });
}

}  // namespace kiln::portable
