// kiln::weight_int8_linear.out: a linear layer with weight-only int8 quantisation, out[..., o] =
// (sum_i input[..., i] * weight[o, i]) * scales[o] + bias[o]. weight is int8 [out_features,
// in_features] with one scale per output channel (Float or the input's dtype); the product runs
// in the portable gemm (the int8 weight converted as it is packed), accumulated in float, and
// the scale and bias are applied before the one rounding to the input's dtype.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/llm/arguments.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Output tiles of Half / BFloat16 results accumulate in a float tile of this many rows x columns.
constexpr int64_t kTileRows = 32;
constexpr int64_t kTileCols = 256;

// row[j] = row[j] * scales[j] + bias[j] (bias optional), j < n.
void finish_row(float* row, const float* scales, const float* bias, int64_t n) {
  multiply_rows(row, scales, row, n);
  if (bias != nullptr) add_rows(row, bias, row, n);
}

// A per-channel vector (scales or bias) chunk as floats: in place for Float, else converted.
const float* channel_floats(const Tensor& t, int64_t start, int64_t n, float* buffer) {
  if (t.scalar_type() == ScalarType::Float) return t.const_data_ptr<float>() + start;
  load_floats(static_cast<const char*>(t.const_data_ptr()) + start * t.element_size(),
              t.scalar_type(), 1, n, buffer);
  return buffer;
}

}  // namespace

Tensor& weight_int8_linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                               const Tensor& scales, const std::optional<Tensor>& bias,
                               Tensor& out) {
  if (!check_int8_linear_arguments(ctx, input, weight, scales, bias) ||
      !check_tensor(ctx, out, "out") || !check_out_dtype_is(ctx, out, input.scalar_type())) {
    return out;
  }
  const int64_t n = weight.size(0);
  const int64_t k = weight.size(1);
  const ScalarType type = input.scalar_type();
  SizesType sizes[kTensorDimensionLimit];
  for (int64_t d = 0; d < input.dim(); ++d) sizes[d] = input.size(d);
  sizes[input.dim() - 1] = static_cast<SizesType>(n);
  if (!resize_or_fail(ctx, out, {sizes, static_cast<size_t>(input.dim())}) ||
      !check_gemm_dtype(ctx, ScalarType::Float, "weight_int8_linear")) {
    return out;
  }
  const int64_t m = n == 0 ? 0 : out.numel() / n;
  if (m == 0 || n == 0) return out;
  const size_t in_size = element_size(type);
  const char* in = static_cast<const char*>(input.const_data_ptr());
  const int8_t* w = weight.const_data_ptr<int8_t>();
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  float scale_buffer[kTileCols];
  float bias_buffer[kTileCols];
  // weight^T as the gemm's B: element (i, o) is weight[o, i], read along contiguous rows.
  if (type == ScalarType::Float) {
    const GemmInput a = {in, type, k, 1};
    const GemmInput b = {w, ScalarType::Char, 1, k};
    gemm(ctx, m, n, k, a, b, GemmOutput{dst, ScalarType::Float, n});
    float* result = reinterpret_cast<float*>(dst);
    for (int64_t j0 = 0; j0 < n; j0 += kTileCols) {
      const int64_t nc = n - j0 < kTileCols ? n - j0 : kTileCols;
      const float* s = channel_floats(scales, j0, nc, scale_buffer);
      const float* bs = bias.has_value() ? channel_floats(*bias, j0, nc, bias_buffer) : nullptr;
      for (int64_t i = 0; i < m; ++i) finish_row(result + i * n + j0, s, bs, nc);
    }
    return out;
  }
  // Half / BFloat16: float tiles, finished and rounded once.
  float tile[kTileRows * kTileCols];
  for (int64_t j0 = 0; j0 < n; j0 += kTileCols) {
    const int64_t nc = n - j0 < kTileCols ? n - j0 : kTileCols;
    const float* s = channel_floats(scales, j0, nc, scale_buffer);
    const float* bs = bias.has_value() ? channel_floats(*bias, j0, nc, bias_buffer) : nullptr;
    const GemmInput b = {w + j0 * k, ScalarType::Char, 1, k};
    for (int64_t i0 = 0; i0 < m; i0 += kTileRows) {
      const int64_t mc = m - i0 < kTileRows ? m - i0 : kTileRows;
      const GemmInput a = {in + i0 * k * in_size, type, k, 1};
      gemm(ctx, mc, nc, k, a, b, GemmOutput{tile, ScalarType::Float, kTileCols});
      for (int64_t i = 0; i < mc; ++i) {
        float* row = tile + i * kTileCols;
        finish_row(row, s, bs, nc);
        store_floats(row, nc, type, dst + ((i0 + i) * n + j0) * in_size);
      }
    }
  }
  return out;
}

}  // namespace kiln::portable::native
