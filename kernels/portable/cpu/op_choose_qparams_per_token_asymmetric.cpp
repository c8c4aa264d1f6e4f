// quantized_decomposed::choose_qparams_per_token_asymmetric.out (ExecuTorch's quantized
// library): for each token (the input's last dimension) the int8 scale (Double) and zero point
// (Long) that quantize its range to [-128, 127] by ExecuTorch's rule (util/quantized/qparams.h);
// the outs have input's shape with 1 as the last size.
#include <atomic>
#include <tuple>

#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/quantized/arguments.h"
#include "kernels/portable/cpu/util/quantized/choose.h"
#include "kernels/portable/cpu/util/quantized/qparams.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

std::tuple<Tensor&, Tensor&> choose_qparams_per_token_asymmetric_out(KernelRuntimeContext& ctx,
                                                                     const Tensor& input,
                                                                     ScalarType dtype,
                                                                     Tensor& scale_out,
                                                                     Tensor& zero_point_out) {
  const std::tuple<Tensor&, Tensor&> outs{scale_out, zero_point_out};
  int64_t tokens = 0;
  if (!check_per_token_qparams_arguments(ctx, input, dtype, scale_out, zero_point_out, &tokens)) {
    return outs;
  }
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t d = 0; d < input.dim(); ++d) sizes[d] = input.size(d);
  sizes[input.dim() - 1] = 1;
  const ArrayRef<SizesType> out_sizes{sizes, static_cast<size_t>(input.dim())};
  if (!resize_or_fail(ctx, scale_out, out_sizes) ||
      !resize_or_fail(ctx, zero_point_out, out_sizes)) {
    return outs;
  }
  const int64_t n = input.size(input.dim() - 1);
  if (tokens == 0) return outs;
  const char* data = static_cast<const char*>(input.const_data_ptr());
  const size_t row_bytes = static_cast<size_t>(n) * input.element_size();
  double* scales = scale_out.mutable_data_ptr<double>();
  int64_t* zero_points = zero_point_out.mutable_data_ptr<int64_t>();
  // Rows are independent; a row with a non-finite value clears `finite` (any chunk may).
  std::atomic<bool> finite{true};
  parallel_for(ctx, 0, tokens, items_grain(n), [&](int64_t first, int64_t last) {
    for (int64_t t = first; t < last; ++t) {
      float min = 0.0f;
      float max = 0.0f;
      if (!finite_range(data + t * row_bytes, input.scalar_type(), n, &min, &max)) {
        finite.store(false, std::memory_order_relaxed);
        return;
      }
      const ChosenQParams chosen = choose_qparams_for_range(min, max, -128, 127);
      scales[t] = chosen.scale;
      zero_points[t] = chosen.zero_point;
    }
  });
  KILN_KERNEL_CHECK_MSG(
      ctx, finite.load(), InvalidArgument, outs,
      "input holds a NaN or infinite value; quantization parameters need a finite range");
  return outs;
}

}  // namespace kiln::portable::native
