// Tiling of the affine quantize / dequantize kernels (ExecuTorch's quantized_decomposed
// operators): a POD the host fills with quantize_tiling().
//
// A tensor is seen as [outer, channels, inner], channel c taking parameter c (per tensor: one
// channel; per channel along an axis: the sizes before it, its size, the sizes after; per token:
// [1, tokens, token size]). The host stages it as rows of `pitch` elements, a multiple of 64
// (whole 256-byte float repeats, so Compare and every Cast see whole repeats and the 1-byte
// quantized tiles whole 32-byte blocks), each row a run of consecutive elements padded with
// zeros, in one of two modes:
//
// - Row mode: every row lies inside one channel's run of `inner` elements, which is split into
//   `parts` rows (so that one channel can still spread over the cores). Row r belongs to channel
//   (r / parts) % channels, whose parameters are one record of kAffineParamWords 32-bit words in
//   GM, read on the scalar unit. For per-tensor, per-token and per-channel runs of 64 elements
//   or more.
// - Column mode (channels > 1 with inner < 64, e.g. per channel along the last dim): a row is a
//   chunk of `pitch` columns of one [channels x inner] slab, the parameters vary along it, and
//   each chunk has kAffineParamWords parameter planes of `pitch` words that the kernel keeps in
//   UB. The rows are staged chunk by chunk: row r is chunk r / outer of slab r % outer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// The quantized storage dtypes ExecuTorch's operators take.
enum class QuantDtype : uint32_t { UInt8 = 0, Int8 = 1, Int16 = 2, UInt16 = 3, Int32 = 4 };

constexpr size_t quant_element_size(QuantDtype dtype) {
  return dtype == QuantDtype::UInt8 || dtype == QuantDtype::Int8 ? 1
         : dtype == QuantDtype::Int32                            ? 4
                                                                 : 2;
}

enum class AffineDirection : uint32_t { Quantize = 0, Dequantize = 1 };

// The launch key of an entry: its direction and its floating dtype (the input of a
// quantization, the output of a dequantization).
constexpr uint32_t affine_key(AffineDirection direction, DeviceDtype float_dtype) {
  return static_cast<uint32_t>(direction) * 4 + static_cast<uint32_t>(float_dtype);
}

// [outer, channels, inner]: how the elements group under their parameters (see above).
struct AffineShape {
  uint64_t outer;
  uint64_t channels;
  uint64_t inner;
};

// The 32-bit words of one channel's parameters (row mode: a record per channel; column mode: a
// plane per word). Quantize: the float 1.0f / float(scale), then int32 bounds on rint(x *
// inv_scale), quant_min - zero_point and quant_max - zero_point, then the int32 zero point.
// Dequantize: the float scale, -zero_point as a float and as an int32 (Int32 input), unused.
constexpr uint32_t kAffineParamWords = 4;
constexpr uint32_t kQuantInvScale = 0;
constexpr uint32_t kQuantLow = 1;
constexpr uint32_t kQuantHigh = 2;
constexpr uint32_t kQuantZeroPoint = 3;
constexpr uint32_t kDequantScale = 0;
constexpr uint32_t kDequantNegZeroFloat = 1;
constexpr uint32_t kDequantNegZeroInt = 2;

// Rows are padded to a multiple of this many elements.
constexpr uint64_t kAffineRowAlign = 64;
// Runs shorter than this take column mode (when the parameters vary).
constexpr uint64_t kAffineColumnInner = 64;

struct QuantizeTiling {
  uint32_t direction;    // AffineDirection
  uint32_t float_dtype;  // DeviceDtype
  uint32_t quant_dtype;  // QuantDtype
  uint32_t column_mode;  // 1: column mode, 0: row mode
  uint64_t outer;
  uint64_t channels;
  uint64_t inner;
  uint64_t parts;    // row mode: rows per channel run
  uint64_t columns;  // column mode: elements of a slab (channels x inner)
  uint64_t chunks;   // column mode: rows per slab
  RowSplit split;    // the staged rows: split.row_len == split.pitch
};

// Pure: the staging of `shape` (normalized: one channel becomes one run) and its split on a
// device with `ub_bytes` of UB per core and `cores` vector cores. The shape has elements.
QuantizeTiling quantize_tiling(AffineDirection direction, DeviceDtype float_dtype,
                               QuantDtype quant_dtype, AffineShape shape, size_t ub_bytes,
                               uint32_t cores);

// Where staged row `row` comes from: `count` consecutive elements of the tensor from `source`
// (the rest of the row is padding).
struct StagedRun {
  uint64_t source;
  uint64_t count;
};

inline StagedRun staged_run(const QuantizeTiling& tiling, uint64_t row) {
  const uint64_t pitch = tiling.split.pitch;
  if (tiling.column_mode != 0) {
    const uint64_t start = row / tiling.outer * pitch;
    const uint64_t left = tiling.columns - start;
    return {row % tiling.outer * tiling.columns + start, left < pitch ? left : pitch};
  }
  const uint64_t start = row % tiling.parts * pitch;
  const uint64_t left = tiling.inner - start;
  return {row / tiling.parts * tiling.inner + start, left < pitch ? left : pitch};
}

// Whether the staged rows are the tensor's elements back to back (only the last row padded).
inline bool staged_flat(const QuantizeTiling& tiling) {
  if (tiling.column_mode != 0) return tiling.chunks == 1 && tiling.columns == tiling.split.pitch;
  return tiling.outer * tiling.channels == 1 || tiling.inner == tiling.parts * tiling.split.pitch;
}

// The length of every staged row when row r is the tensor's elements [r * length, (r + 1) *
// length) padded; 0 when the rows are gathered otherwise.
inline uint64_t staged_row_length(const QuantizeTiling& tiling) {
  if (tiling.column_mode != 0) return tiling.chunks == 1 ? tiling.columns : 0;
  return tiling.parts == 1 ? tiling.inner : 0;
}

// 32-bit words of the parameter array in GM.
inline uint64_t param_words(const QuantizeTiling& tiling) {
  if (tiling.column_mode != 0) return tiling.chunks * kAffineParamWords * tiling.split.pitch;
  return tiling.channels * kAffineParamWords;
}

}  // namespace kiln::ascend
