// The 16-bit rows' dispatch point (util/vec/convert.h's widen_row, narrow_row, round_to_half):
// the CPU's own Half conversions, F16C on x86-64-v3 and NEON on AArch64, and an AVX2 narrowing of
// BFloat16. Each converts the first elements of a contiguous row and returns how many; the
// caller's plain loop converts the rest (all of them where it returns 0). Rounding is the plain
// loops': to nearest even, subnormals kept, overflow to infinity, NaN stays NaN.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"
#include "runtime/core/half.h"

namespace kiln::portable::isa {

#if defined(KILN_ISA_X86) || defined(KILN_ISA_ARM)
int64_t widen_row(const Half* src, float* dst, int64_t n);
int64_t narrow_row(const float* src, Half* dst, int64_t n);
int64_t narrow_row(const float* src, BFloat16* dst, int64_t n);
int64_t round_to_half(float* values, int64_t n);
#else
inline int64_t widen_row(const Half*, float*, int64_t) { return 0; }
inline int64_t narrow_row(const float*, Half*, int64_t) { return 0; }
inline int64_t narrow_row(const float*, BFloat16*, int64_t) { return 0; }
inline int64_t round_to_half(float*, int64_t) { return 0; }
#endif

}  // namespace kiln::portable::isa
