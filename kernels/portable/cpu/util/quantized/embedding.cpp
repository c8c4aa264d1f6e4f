// The portable kernels of ExecuTorch's quantized embeddings: gather the rows indices name,
// unpack their codes and dequantize them (embedding.h).
#include "kernels/portable/cpu/util/quantized/embedding.h"

#include <algorithm>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/core/half.h"

namespace kiln::portable {
namespace {

// Values dequantized per pass through the float buffer a Half or BFloat16 row is rounded from.
constexpr int64_t kChunk = 256;

// Code j of a table row in ExecuTorch's packing (embedding.h).
template <int kBits, typename W>
KILN_ALWAYS_INLINE int32_t code_at(const W* row, int64_t j) {
  if constexpr (kBits == 8) {
    return row[j];
  } else if constexpr (kBits == 4) {
    return ((row[j >> 1] >> ((j & 1) != 0 ? 0 : 4)) & 0xF) - 8;
  } else {
    return ((row[j >> 2] >> (2 * (j & 3))) & 0x3) - 2;
  }
}

// dst[k] = (code(first + k) - zero_point) * scale for k < n, in float: ExecuTorch's arithmetic,
// so that results match its kernels bit for bit.
template <int kBits, typename W>
KILN_HOT_LOOP void dequantize_codes(const W* row, int64_t first, int64_t n, float zero_point,
                                    float scale, float* dst) {
  for (int64_t k = 0; k < n; ++k) {
    dst[k] = (static_cast<float>(code_at<kBits>(row, first + k)) - zero_point) * scale;
  }
}

// Element i of a contiguous Float, Half or BFloat16 tensor (scales, zero points).
float float_at(const Tensor& tensor, int64_t i) {
  switch (tensor.scalar_type()) {
    case ScalarType::Half:
      return static_cast<float>(tensor.const_data_ptr<Half>()[i]);
    case ScalarType::BFloat16:
      return static_cast<float>(tensor.const_data_ptr<BFloat16>()[i]);
    default:
      return tensor.const_data_ptr<float>()[i];
  }
}

// Out rows [begin, end): row i is table row indices[i] dequantized, group by group. A Float row
// is computed in place; a 16-bit one through a float buffer, rounded once as it is stored.
template <int kBits, typename W>
void gather_rows(const Tensor& weight, const Tensor& scales, const Tensor* zero_points,
                 const Tensor& indices, const EmbeddingTable& table, int64_t begin, int64_t end,
                 Tensor& out) {
  const W* codes = weight.const_data_ptr<W>();
  const int64_t row_bytes = weight.size(1);
  const ScalarType out_type = out.scalar_type();
  const int64_t out_size = static_cast<int64_t>(element_size(out_type));
  char* out_bytes = static_cast<char*>(out.mutable_data_ptr());
  float buffer[kChunk];
  for (int64_t i = begin; i < end; ++i) {
    const int64_t r = index_at(indices, i);
    const W* row = codes + r * row_bytes;
    char* dst = out_bytes + i * table.dim * out_size;
    for (int64_t g = 0; g < table.groups; ++g) {
      const int64_t p = r * table.groups + g;
      const float scale = float_at(scales, p);
      const float zero_point = zero_points == nullptr ? 0.0f : float_at(*zero_points, p);
      const int64_t stop = (g + 1) * table.group_size;
      for (int64_t j = g * table.group_size; j < stop; j += kChunk) {
        const int64_t n = std::min(kChunk, stop - j);
        if (out_type == ScalarType::Float) {
          dequantize_codes<kBits>(row, j, n, zero_point, scale, reinterpret_cast<float*>(dst) + j);
        } else {
          dequantize_codes<kBits>(row, j, n, zero_point, scale, buffer);
          store_floats(buffer, n, out_type, dst + j * out_size);
        }
      }
    }
  }
}

// gather_rows for the table's packing and code type.
void gather_rows_of(const Tensor& weight, const Tensor& scales, const Tensor* zero_points,
                    const Tensor& indices, const EmbeddingTable& table, int64_t begin, int64_t end,
                    Tensor& out) {
  switch (table.bits) {
    case 8:
      if (weight.scalar_type() == ScalarType::Char) {
        return gather_rows<8, int8_t>(weight, scales, zero_points, indices, table, begin, end, out);
      }
      return gather_rows<8, uint8_t>(weight, scales, zero_points, indices, table, begin, end, out);
    case 4:
      return gather_rows<4, uint8_t>(weight, scales, zero_points, indices, table, begin, end, out);
    default:
      return gather_rows<2, uint8_t>(weight, scales, zero_points, indices, table, begin, end, out);
  }
}

}  // namespace

void quantized_embedding(KernelRuntimeContext& ctx, int bits, const Tensor& weight,
                         const Tensor& weight_scales,
                         const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                         int64_t weight_quant_max, const Tensor& indices,
                         const EmbeddingOutDtype& rule, Tensor& out) {
  EmbeddingTable table;
  if (!check_embedding_arguments(ctx, bits, weight, weight_scales, weight_zero_points,
                                 weight_quant_min, weight_quant_max, indices, rule, out, &table) ||
      !check_rank_limit(ctx, static_cast<size_t>(indices.dim()) + 1,
                        "the result [*indices.shape, embedding_dim]")) {
    return;
  }
  const size_t rank = static_cast<size_t>(indices.dim());
  SizesType sizes[kTensorDimensionLimit];
  for (size_t d = 0; d < rank; ++d) sizes[d] = indices.size(static_cast<int64_t>(d));
  sizes[rank] = table.dim;
  if (!resize_or_fail(ctx, out, {sizes, rank + 1}) || !check_default_dim_order(ctx, out, "out")) {
    return;
  }
  const int64_t count = indices.numel();
  if (count == 0 || table.dim == 0) return;
  const Tensor* zero_points = weight_zero_points.has_value() ? &*weight_zero_points : nullptr;
  parallel_for(ctx, 0, count, items_grain(table.dim), [&](int64_t begin, int64_t end) {
    gather_rows_of(weight, weight_scales, zero_points, indices, table, begin, end, out);
  });
}

}  // namespace kiln::portable
