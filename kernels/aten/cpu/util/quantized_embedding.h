// ATen mode: ExecuTorch's quantized embeddings (quantized_decomposed::embedding_byte,
// embedding_4bit, embedding_2bit) with libtorch's ops: the rows indices name, their codes unpacked
// with bit operations and dequantized in float, (code - zero_point) * scale, rounded once to out's
// dtype. The arguments are checked by the portable kernels' own checks
// (kernels/portable/cpu/util/quantized/embedding.h), so both refuse the same inputs alike.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/aten/cpu/util/llm.h"
#include "kernels/portable/cpu/util/quantized/embedding.h"

namespace kiln::aten_kernels {

// The codes of packed table rows (Byte or Char, [n, dim * bits / 8]) as int32 [n, dim], in
// ExecuTorch's order: a 4-bit byte holds code 2k in its high nibble, a 2-bit byte code 4k + i in
// bits 2i and 2i + 1; packed codes are stored with an offset of 2^(bits - 1).
inline at::Tensor unpack_embedding_codes(const at::Tensor& packed, int bits) {
  const at::Tensor bytes = packed.to(at::kInt);
  if (bits == 8) return bytes;
  const int64_t mask = (int64_t{1} << bits) - 1;
  const int per_byte = 8 / bits;
  std::vector<at::Tensor> fields;
  for (int i = 0; i < per_byte; ++i) {
    const int shift = bits == 4 ? 4 * (1 - i) : 2 * i;
    fields.push_back(at::bitwise_and(at::bitwise_right_shift(bytes, shift), mask));
  }
  return at::stack(fields, -1).reshape({packed.size(0), packed.size(1) * per_byte}) -
         (int64_t{1} << (bits - 1));
}

// The kernel of all six operators: checks (as the portable kernels do), then out =
// [*indices.shape, embedding_dim] of dequantized rows.
inline void quantized_embedding(KernelRuntimeContext& ctx, int bits, const at::Tensor& weight,
                                const at::Tensor& weight_scales,
                                const std::optional<at::Tensor>& weight_zero_points,
                                int64_t weight_quant_min, int64_t weight_quant_max,
                                const at::Tensor& indices, const portable::EmbeddingOutDtype& rule,
                                at::Tensor& out) {
  portable::EmbeddingTable table{};
  if (!portable::check_embedding_arguments(ctx, bits, weight, weight_scales, weight_zero_points,
                                           weight_quant_min, weight_quant_max, indices, rule, out,
                                           &table)) {
    return;
  }
  at::Tensor result;
  if (!run_aten(ctx, [&] {
        const at::Tensor rows = indices.reshape({-1});
        const int64_t n = rows.numel();
        const std::vector<int64_t> per_group = {n, table.groups, 1};
        at::Tensor values = unpack_embedding_codes(weight.index_select(0, rows), bits)
                                .to(at::kFloat)
                                .reshape({n, table.groups, table.group_size});
        if (weight_zero_points.has_value()) {
          values =
              values - weight_zero_points->index_select(0, rows).to(at::kFloat).reshape(per_group);
        }
        values = values * weight_scales.index_select(0, rows).to(at::kFloat).reshape(per_group);
        std::vector<int64_t> sizes = indices.sizes().vec();
        sizes.push_back(table.dim);
        result = values.reshape(sizes).to(out.scalar_type());
      })) {
    return;
  }
  store(ctx, result, out);
}

}  // namespace kiln::aten_kernels
