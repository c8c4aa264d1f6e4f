// quantized_decomposed::mixed_linear.out (ExecuTorch's quantized library): out [m, n] = input
// [m, k] times the transpose of weight [n, k] of int8, whose element (j, p) stands for
// (weight[j][p] - zero_point) * scale with the scale and zero point of row j (weight_scales [n])
// or of row j's column group p / group_size (weight_scales [n, groups]). Products are accumulated
// in float and rounded once to out's dtype (`dtype` when given).
//
// Scales that vary along k cannot be applied to the gemm's results, so the weight is dequantized
// block by block into a float buffer on the stack and multiplied there: each output tile sums its
// k in chunks, each chunk's weight block dequantized once per tile. Per-row scales take the same
// path: the dequantization replaces the int8 conversion the gemm would do while packing, and
// float blocks let a few rows (decoding) take the gemm's dot products read in place. Tiles run
// side by side on the context's threads, each of its gemms on its own thread.
#include <algorithm>
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "kernels/portable/cpu/util/quantized/mixed_arguments.h"
#include "kernels/portable/cpu/util/vec/convert.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// An output tile is kTileRows x kTileCols; k is summed kChunk columns of the weight at a time,
// whose block (kTileCols x kChunk floats, 64 KB) stays in L2 while the tile's rows reuse it. A
// tile's buffers take 160 KB of stack besides the gemm's.
constexpr int64_t kTileRows = 64;
constexpr int64_t kTileCols = 64;
constexpr int64_t kChunk = 256;

// The operands of one product, read-only across the threads.
struct MixedLinear {
  const char* input;
  ScalarType input_type;
  const int8_t* weight;
  const char* scales;       // [n, groups] of param_type
  const char* zero_points;  // like scales, or null for zeros
  ScalarType param_type;
  ScaleGroups layout;
  char* out;
  ScalarType out_type;
  int64_t m, n, k;
};

// dst[i] = (w[i] - zero) * scale, i < count.
KILN_HOT_LOOP void dequantize_run(const int8_t* w, int64_t count, float zero, float scale,
                                  float* dst) {
  for (int64_t i = 0; i < count; ++i) dst[i] = (static_cast<float>(w[i]) - zero) * scale;
}

// Weight rows [j0, j0 + rows), columns [p0, p0 + kc), dequantized into `block` (row stride kc),
// a run per column group; each row's parameters for the chunk are converted together.
void dequantize_block(const MixedLinear& op, int64_t j0, int64_t rows, int64_t p0, int64_t kc,
                      float* block) {
  const int64_t group_size = op.layout.group_size;
  const int64_t first = p0 / group_size;
  const int64_t count = (p0 + kc - 1) / group_size - first + 1;  // at most kc
  const int64_t size = static_cast<int64_t>(element_size(op.param_type));
  float scales[kChunk];
  float zeros[kChunk] = {};
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t j = j0 + r;
    const int64_t offset = (j * op.layout.groups + first) * size;
    load_floats(op.scales + offset, op.param_type, 1, count, scales);
    if (op.zero_points != nullptr)
      load_floats(op.zero_points + offset, op.param_type, 1, count, zeros);
    for (int64_t p = p0, g = 0; p < p0 + kc; ++g) {
      const int64_t end = std::min((first + g + 1) * group_size, p0 + kc);
      dequantize_run(op.weight + j * op.k + p, end - p, zeros[g], scales[g],
                     block + r * kc + (p - p0));
      p = end;
    }
  }
}

// Input rows [i0, i0 + mc), columns [p0, p0 + kc) as the gemm's A: Float rows in place, Half
// ones converted into `buffer` (row stride kc), so that the gemm multiplies floats only (and
// takes its dot-product path for a few rows).
GemmInput input_chunk(const MixedLinear& op, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                      float* buffer) {
  const size_t size = element_size(op.input_type);
  const char* rows = op.input + (i0 * op.k + p0) * size;
  if (op.input_type == ScalarType::Float) return {rows, ScalarType::Float, op.k, 1};
  for (int64_t i = 0; i < mc; ++i) {
    load_floats(rows + i * op.k * size, op.input_type, 1, kc, buffer + i * kc);
  }
  return {buffer, ScalarType::Float, kc, 1};
}

// Output rows [i0, i0 + mc) x columns [j0, j0 + nc), summed in a float tile and stored once.
void linear_tile(const MixedLinear& op, int64_t i0, int64_t mc, int64_t j0, int64_t nc) {
  const KernelRuntimeContext one_thread;
  alignas(64) float block[kTileCols * kChunk];
  alignas(64) float inputs[kTileRows * kChunk];
  alignas(64) float sum[kTileRows * kTileCols];
  alignas(64) float partial[kTileRows * kTileCols];
  if (op.k == 0) std::fill(sum, sum + mc * kTileCols, 0.0f);
  for (int64_t p0 = 0; p0 < op.k; p0 += kChunk) {
    const int64_t kc = std::min(kChunk, op.k - p0);
    dequantize_block(op, j0, nc, p0, kc, block);
    const GemmInput a = input_chunk(op, i0, mc, p0, kc, inputs);
    // B (kc x nc) is the block transposed: element (p, j) at block[j * kc + p].
    const GemmInput b = {block, ScalarType::Float, 1, kc};
    float* dst = p0 == 0 ? sum : partial;
    gemm(one_thread, mc, nc, kc, a, b, GemmOutput{dst, ScalarType::Float, kTileCols});
    if (dst == sum) continue;
    for (int64_t i = 0; i < mc; ++i) {
      add_rows(sum + i * kTileCols, partial + i * kTileCols, sum + i * kTileCols, nc);
    }
  }
  const size_t out_size = element_size(op.out_type);
  for (int64_t i = 0; i < mc; ++i) {
    store_row<float>(sum + i * kTileCols, nc, op.out_type,
                     op.out + ((i0 + i) * op.n + j0) * out_size);
  }
}

void mixed_linear(const KernelRuntimeContext& ctx, const MixedLinear& op) {
  if (op.m == 0 || op.n == 0) return;
  const int64_t row_tiles = (op.m + kTileRows - 1) / kTileRows;
  const int64_t col_tiles = (op.n + kTileCols - 1) / kTileCols;
  const int64_t tile_work = std::min(op.m, kTileRows) * kTileCols * std::max<int64_t>(op.k, 1);
  const int64_t grain = tile_work >= kGemmGrain ? 1 : (kGemmGrain + tile_work - 1) / tile_work;
  // Column tiles vary fastest: a thread's tiles share rows of the input and walk the weight.
  parallel_for(ctx, 0, row_tiles * col_tiles, grain, [&](int64_t first, int64_t last) {
    for (int64_t t = first; t < last; ++t) {
      const int64_t i0 = t / col_tiles * kTileRows;
      const int64_t j0 = t % col_tiles * kTileCols;
      linear_tile(op, i0, std::min(kTileRows, op.m - i0), j0, std::min(kTileCols, op.n - j0));
    }
  });
}

}  // namespace

Tensor& mixed_linear_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                         const Tensor& weight_scales,
                         const std::optional<Tensor>& weight_zero_points,
                         std::optional<ScalarType> dtype, Tensor& out) {
  ScaleGroups layout;
  if (!check_mixed_linear_arguments(ctx, input, weight, weight_scales, weight_zero_points, dtype,
                                    out, &layout) ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  const int64_t m = input.size(0);
  const int64_t n = weight.size(0);
  const SizesType sizes[2] = {static_cast<SizesType>(m), static_cast<SizesType>(n)};
  if (!resize_or_fail(ctx, out, {sizes, 2}) ||
      !check_gemm_dtype(ctx, ScalarType::Float, "mixed_linear")) {
    return out;
  }
  if (!check_out_apart(ctx, out, input, "input") || !check_out_apart(ctx, out, weight, "weight") ||
      !check_out_apart(ctx, out, weight_scales, "weight_scales") ||
      (weight_zero_points.has_value() &&
       !check_out_apart(ctx, out, *weight_zero_points, "weight_zero_points"))) {
    return out;
  }
  const MixedLinear op = {static_cast<const char*>(input.const_data_ptr()),
                          input.scalar_type(),
                          weight.const_data_ptr<int8_t>(),
                          static_cast<const char*>(weight_scales.const_data_ptr()),
                          weight_zero_points.has_value()
                              ? static_cast<const char*>(weight_zero_points->const_data_ptr())
                              : nullptr,
                          weight_scales.scalar_type(),
                          layout,
                          static_cast<char*>(out.mutable_data_ptr()),
                          out.scalar_type(),
                          m,
                          n,
                          input.size(1)};
  mixed_linear(ctx, op);
  return out;
}

}  // namespace kiln::portable::native
