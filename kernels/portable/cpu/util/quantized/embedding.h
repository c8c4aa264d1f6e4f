// Argument checks and portable kernel body of ExecuTorch's quantized embeddings
// (quantized_decomposed::embedding_byte, embedding_4bit and embedding_2bit, each .out and
// .dtype_out): a table of integer codes, 8, 4 or 2 bits each, with a scale (and optionally a zero
// point) per row or per group of a row; the kernels gather the rows `indices` name and dequantize
// them, out[..., j] = (code - zero_point) * scale.
//
// The packing is ExecuTorch's: an 8-bit table is a Byte or Char tensor of the codes themselves;
// a 4-bit table is Byte, two codes per byte, the high nibble first, each code stored + 8 (codes
// in [-8, 7]); a 2-bit table is Byte, four codes per byte, the low bits first, each code stored
// + 2 (codes in [-2, 1]).
//
// The argument checks are written once for the portable kernels and the ATen-mode ones
// (kernels/aten/cpu), so both refuse the same inputs with the same messages: header-only, over
// what kiln::Tensor offers in both builds (in ATen mode it is at::Tensor). Each check returns true
// when the arguments are fine; otherwise it has called ctx.fail and the kernel returns.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// A checked table: weight [rows, dim * bits / 8] with `groups` scales per row, each covering
// group_size = dim / groups consecutive values.
struct EmbeddingTable {
  int bits;  // 8, 4 or 2
  int64_t rows;
  int64_t dim;  // embedding_dim, the values of one row
  int64_t groups;
  int64_t group_size;
};

// What fixes out's dtype: .out returns weight_scales' dtype; .dtype_out returns its dtype
// argument, and without one any floating dtype out has (as ExecuTorch's kernel does).
struct EmbeddingOutDtype {
  std::optional<ScalarType> dtype;
  const char* source;  // names `dtype` in messages
  const char* other;   // how to get another dtype, for messages
};

inline EmbeddingOutDtype embedding_out_dtype_of_scales(const Tensor& weight_scales) {
  return {weight_scales.scalar_type(), "weight_scales' dtype, which .out returns,",
          " (.dtype_out returns the dtype it is given)"};
}

inline EmbeddingOutDtype embedding_out_dtype_argument(std::optional<ScalarType> dtype) {
  return {dtype, "the dtype argument", ""};
}

// weight: a contiguous 2-D table of `bits`-bit codes (Byte or Char for 8 bits, packed Byte
// otherwise); sets table->bits, rows and dim.
inline bool check_embedding_weight(KernelRuntimeContext& ctx, int bits, const Tensor& weight,
                                   EmbeddingTable* table) {
  const ScalarType dtype = weight.scalar_type();
  if (bits == 8) {
    KILN_KERNEL_CHECK_MSG(ctx, dtype == ScalarType::Byte || dtype == ScalarType::Char, InvalidType,
                          false,
                          "weight has dtype %s; embedding_byte takes a table of Byte (uint8) or "
                          "Char (int8) codes",
                          to_string(dtype));
  } else {
    KILN_KERNEL_CHECK_MSG(ctx, dtype == ScalarType::Byte, InvalidType, false,
                          "weight has dtype %s; embedding_%dbit takes its %d-bit codes packed "
                          "%d to a byte in a Byte (uint8) tensor",
                          to_string(dtype), bits, bits, 8 / bits);
  }
  if (!check_rank(ctx, weight, "weight", 2)) return false;
  table->bits = bits;
  table->rows = weight.size(0);
  table->dim = weight.size(1) * (8 / bits);
  return true;
}

// weight_scales: a contiguous Float, Half or BFloat16 tensor of shape [rows] (a scale per row) or
// [rows, groups] with groups dividing embedding_dim; sets table->groups and group_size.
inline bool check_embedding_scales(KernelRuntimeContext& ctx, const Tensor& weight_scales,
                                   const Tensor& weight, EmbeddingTable* table) {
  if (!check_activation(ctx, weight_scales, "weight_scales")) return false;
  const int64_t rank = weight_scales.dim();
  KILN_KERNEL_CHECK_MSG(ctx, (rank == 1 || rank == 2) && weight_scales.size(0) == table->rows,
                        InvalidArgument, false,
                        "weight_scales has shape %s but weight has shape %s; pass [%lld] (a "
                        "scale per row) or [%lld, groups] (a scale per group of a row)",
                        sizes_text(weight_scales).text, sizes_text(weight).text,
                        static_cast<long long>(table->rows), static_cast<long long>(table->rows));
  table->groups = rank == 2 ? weight_scales.size(1) : 1;
  KILN_KERNEL_CHECK_MSG(
      ctx, table->groups > 0 && table->dim % table->groups == 0, InvalidArgument, false,
      "weight_scales has shape %s: its %lld groups per row must divide embedding_dim %lld "
      "(each row of weight %s holds %lld codes of %d bits); pass a number of groups that "
      "divides it",
      sizes_text(weight_scales).text, static_cast<long long>(table->groups),
      static_cast<long long>(table->dim), sizes_text(weight).text,
      static_cast<long long>(table->dim), table->bits);
  table->group_size = table->dim / table->groups;
  return true;
}

// weight_zero_points, when given: contiguous, of weight_scales' dtype and shape (one zero point
// per scale, read as ExecuTorch's kernel reads it, in the scales' type).
inline bool check_embedding_zero_points(KernelRuntimeContext& ctx,
                                        const std::optional<Tensor>& weight_zero_points,
                                        const Tensor& weight_scales) {
  if (!weight_zero_points.has_value()) return true;
  return check_contiguous(ctx, *weight_zero_points, "weight_zero_points") &&
         check_dtype_matches(ctx, *weight_zero_points, "weight_zero_points",
                             weight_scales.scalar_type(), "weight_scales") &&
         check_same_shape(ctx, *weight_zero_points, "weight_zero_points", weight_scales,
                          "weight_scales");
}

// The table: weight, weight_scales, weight_zero_points and the code range (which only has to be
// a range: ExecuTorch's kernels carry it as metadata and never clamp to it).
inline bool check_embedding_table(KernelRuntimeContext& ctx, int bits, const Tensor& weight,
                                  const Tensor& weight_scales,
                                  const std::optional<Tensor>& weight_zero_points,
                                  int64_t weight_quant_min, int64_t weight_quant_max,
                                  EmbeddingTable* table) {
  if (!check_embedding_weight(ctx, bits, weight, table) ||
      !check_embedding_scales(ctx, weight_scales, weight, table) ||
      !check_embedding_zero_points(ctx, weight_zero_points, weight_scales)) {
    return false;
  }
  KILN_KERNEL_CHECK_MSG(ctx, weight_quant_min <= weight_quant_max, InvalidArgument, false,
                        "weight_quant_min %lld is greater than weight_quant_max %lld; pass "
                        "weight_quant_min <= weight_quant_max",
                        static_cast<long long>(weight_quant_min),
                        static_cast<long long>(weight_quant_max));
  return true;
}

// indices: a contiguous Int or Long tensor of any rank, every value a row of the table.
inline bool check_embedding_indices(KernelRuntimeContext& ctx, const Tensor& indices,
                                    const EmbeddingTable& table) {
  if (!check_index_tensor(ctx, indices, "indices", indices.dim())) return false;
  const int64_t count = indices.numel();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t row = index_at(indices, i);
    KILN_KERNEL_CHECK_MSG(ctx, row >= 0 && row < table.rows, InvalidArgument, false,
                          "indices holds %lld at flat position %lld, outside weight's %lld rows; "
                          "pass indices in [0, %lld)",
                          static_cast<long long>(row), static_cast<long long>(i),
                          static_cast<long long>(table.rows), static_cast<long long>(table.rows));
  }
  return true;
}

// The dtypes a dequantized embedding can have.
inline bool is_embedding_result_dtype(ScalarType dtype) {
  return dtype == ScalarType::Float || dtype == ScalarType::Half || dtype == ScalarType::BFloat16;
}

// out: the dtype `rule` fixes, or without one any of Float, Half and BFloat16.
inline bool check_embedding_out(KernelRuntimeContext& ctx, const Tensor& out,
                                const EmbeddingOutDtype& rule) {
  const ScalarType dtype = out.scalar_type();
  if (!rule.dtype.has_value()) {
    KILN_KERNEL_CHECK_MSG(ctx, is_embedding_result_dtype(dtype), InvalidType, false,
                          "out has dtype %s; pass a Float, Half or BFloat16 tensor",
                          to_string(dtype));
    return true;
  }
  const ScalarType expected = *rule.dtype;
  KILN_KERNEL_CHECK_MSG(ctx, is_embedding_result_dtype(expected), InvalidType, false,
                        "%s is %s, but the result is Float, Half or BFloat16; pass one of these",
                        rule.source, to_string(expected));
  KILN_KERNEL_CHECK_MSG(ctx, dtype == expected, InvalidType, false,
                        "out has dtype %s but %s is %s; pass out of dtype %s%s", to_string(dtype),
                        rule.source, to_string(expected), to_string(expected), rule.other);
  return true;
}

// Every argument of a quantized embedding but out's shape, which the kernel sets to
// [*indices.shape, embedding_dim]. Fills *table.
inline bool check_embedding_arguments(KernelRuntimeContext& ctx, int bits, const Tensor& weight,
                                      const Tensor& weight_scales,
                                      const std::optional<Tensor>& weight_zero_points,
                                      int64_t weight_quant_min, int64_t weight_quant_max,
                                      const Tensor& indices, const EmbeddingOutDtype& rule,
                                      const Tensor& out, EmbeddingTable* table) {
  return check_embedding_table(ctx, bits, weight, weight_scales, weight_zero_points,
                               weight_quant_min, weight_quant_max, table) &&
         check_embedding_indices(ctx, indices, *table) && check_embedding_out(ctx, out, rule);
}

#if !KILN_ATEN_MODE
// The portable kernels' whole body (embedding.cpp): checks the arguments, sizes out
// [*indices.shape, embedding_dim] and writes the dequantized rows, computed in float as
// ExecuTorch's kernels compute them, (float(code) - float(zero_point)) * float(scale), and
// rounded once to out's dtype.
void quantized_embedding(KernelRuntimeContext& ctx, int bits, const Tensor& weight,
                         const Tensor& weight_scales,
                         const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                         int64_t weight_quant_max, const Tensor& indices,
                         const EmbeddingOutDtype& rule, Tensor& out);
#endif

}  // namespace kiln::portable
