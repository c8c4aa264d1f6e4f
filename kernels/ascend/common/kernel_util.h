// Device-side helpers shared by Kiln's Ascend C kernels (compiled by bisheng or against the
// emulator).
#pragma once

#include <type_traits>

#include "kernel_operator.h"

namespace kiln::ascend {

// The RoundMode that narrows float to T (half or bfloat16_t) to nearest even on every SoC:
// CAST_NONE for half (310P takes only CAST_NONE or CAST_ODD there), CAST_RINT for bfloat16_t
// (which takes no CAST_NONE).
template <typename T>
inline constexpr AscendC::RoundMode kNarrowToNearest =
    std::is_same_v<T, half> ? AscendC::RoundMode::CAST_NONE : AscendC::RoundMode::CAST_RINT;

// Copies a POD tiling struct from GM into the kernel's scalar memory, field bytes as written by
// the host (the role CANN's GET_TILING_DATA plays for registered ops).
template <typename Tiling>
__aicore__ inline Tiling load_tiling(GM_ADDR tiling) {
  Tiling result;
  const __gm__ uint8_t* src = tiling;
  uint8_t* dst = reinterpret_cast<uint8_t*>(&result);
  for (uint32_t i = 0; i < sizeof(Tiling); ++i) dst[i] = src[i];
  return result;
}

// This core's slice [start, start + length) of `total` elements split in `block_elems` parts.
struct BlockRange {
  uint64_t start;
  uint64_t length;
};

__aicore__ inline BlockRange block_range(uint64_t total, uint64_t block_elems) {
  const uint64_t start = block_elems * AscendC::GetBlockIdx();
  if (start >= total) return {start, 0};
  const uint64_t rest = total - start;
  return {start, rest < block_elems ? rest : block_elems};
}

// Where src is NaN, dst takes src: torch propagates NaN through relu, clamp and max, which the
// vector unit's Max/Min/Relu do not promise. `mask` holds n bits (n / 8 bytes, 32-byte aligned).
template <typename T>
__aicore__ inline void keep_nan(const AscendC::LocalTensor<T>& dst,
                                const AscendC::LocalTensor<T>& src,
                                const AscendC::LocalTensor<uint8_t>& mask, uint32_t n) {
  AscendC::Compare(mask, src, src, AscendC::CMPMODE::EQ, n);  // false only for NaN
  AscendC::Select(dst, mask, dst, src, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
}

}  // namespace kiln::ascend
