// quantized_decomposed::mixed_mm.out (ExecuTorch's quantized library): out [m, n] = input [m, k]
// times weight [k, n] of int8, whose row p stands for (weight[p] - weight_zero_points[p]) *
// weight_scales[p]. The portable gemm reads the weight through a loader that dequantizes each row
// as it is packed, so the product is accumulated in float and rounded once to out's dtype (the
// input's), with no copy of the weight.
#include <optional>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/linalg/gemm.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "kernels/portable/cpu/util/quantized/mixed_arguments.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// The weight as the gemm's B, for load_dequantized_row.
struct DequantizedWeight {
  const int8_t* weight;
  int64_t k, n;             // weight's shape
  const char* scales;       // k values of `type`
  const char* zero_points;  // k values of `type`, or null for zeros
  ScalarType type;
  size_t size;  // of an element of `type`
};

// One parameter as a float (Float or Half).
float parameter(const DequantizedWeight& w, const char* values, int64_t p) {
  float value = 0.0f;
  load_floats(values + p * w.size, w.type, 1, 1, &value);
  return value;
}

// Rows of the weight asked for ahead of the one being dequantized. The gemm loads a short run of
// each row, rows a wide weight holds a page or more apart: too many streams at once for the
// hardware prefetchers, so without this every row waits on memory.
constexpr int64_t kRowsAhead = 8;

// A GemmRowLoader: dst[j] = (weight[p][col0 + j] - zero_point[p]) * scale[p], j < count.
KILN_HOT_LOOP void load_dequantized_row(const void* user, int64_t p, int64_t col0, int64_t count,
                                        void* dst) {
  const auto& w = *static_cast<const DequantizedWeight*>(user);
  if (p + kRowsAhead < w.k) {
    const int8_t* ahead = w.weight + (p + kRowsAhead) * w.n + col0;
    for (int64_t offset = 0; offset < count; offset += 64) __builtin_prefetch(ahead + offset);
  }
  const float scale = parameter(w, w.scales, p);
  const float zero = w.zero_points != nullptr ? parameter(w, w.zero_points, p) : 0.0f;
  const int8_t* row = w.weight + p * w.n + col0;
  float* values = static_cast<float*>(dst);
  for (int64_t j = 0; j < count; ++j) values[j] = (static_cast<float>(row[j]) - zero) * scale;
}

}  // namespace

Tensor& mixed_mm_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                     const Tensor& weight_scales, const std::optional<Tensor>& weight_zero_points,
                     Tensor& out) {
  if (!check_mixed_mm_arguments(ctx, input, weight, weight_scales, weight_zero_points, out) ||
      !check_tensor(ctx, out, "out")) {
    return out;
  }
  const int64_t m = input.size(0);
  const int64_t k = input.size(1);
  const int64_t n = weight.size(1);
  const ScalarType type = input.scalar_type();
  const SizesType sizes[2] = {static_cast<SizesType>(m), static_cast<SizesType>(n)};
  if (!resize_or_fail(ctx, out, {sizes, 2}) || !check_gemm_dtype(ctx, type, "mixed_mm")) {
    return out;
  }
  if (!check_out_apart(ctx, out, input, "input") || !check_out_apart(ctx, out, weight, "weight") ||
      !check_out_apart(ctx, out, weight_scales, "weight_scales") ||
      (weight_zero_points.has_value() &&
       !check_out_apart(ctx, out, *weight_zero_points, "weight_zero_points"))) {
    return out;
  }
  const DequantizedWeight dequantized = {
      weight.const_data_ptr<int8_t>(),
      k,
      n,
      static_cast<const char*>(weight_scales.const_data_ptr()),
      weight_zero_points.has_value()
          ? static_cast<const char*>(weight_zero_points->const_data_ptr())
          : nullptr,
      type,
      element_size(type)};
  const GemmInput a = {input.const_data_ptr(), type, k, 1};
  const GemmInput b = {nullptr, ScalarType::Float, 0, 0, load_dequantized_row, &dequantized};
  gemm(ctx, m, n, k, a, b, GemmOutput{out.mutable_data_ptr(), type, n});
  return out;
}

}  // namespace kiln::portable::native
