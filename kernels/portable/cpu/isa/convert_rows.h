// The 16-bit rows' dispatch point (util/vec/convert.h's widen_row, narrow_row, round_to_half):
// the CPU's own Half conversions, F16C on x86-64-v3 and NEON on AArch64, and an AVX2 narrowing of
// BFloat16. Each converts the first elements of a contiguous row and returns how many; the
// caller's plain loop converts the rest (all of them where it returns 0). Rounding is the plain
// loops': to nearest even, subnormals kept, overflow to infinity, NaN stays NaN.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/arm/convert_neon.h"
#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/isa/x86/convert_f16c.h"
#include "runtime/core/half.h"

namespace kiln::portable::isa {

inline int64_t widen_row(const Half* src, float* dst, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::widen_half_f16c(src, dst, n);
#elif defined(KILN_ISA_ARM)
  if (neon()) return arm::widen_half_neon(src, dst, n);
#endif
  static_cast<void>(src), static_cast<void>(dst), static_cast<void>(n);
  return 0;
}

inline int64_t narrow_row(const float* src, Half* dst, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::narrow_half_f16c(src, dst, n);
#elif defined(KILN_ISA_ARM)
  if (neon()) return arm::narrow_half_neon(src, dst, n);
#endif
  static_cast<void>(src), static_cast<void>(dst), static_cast<void>(n);
  return 0;
}

inline int64_t narrow_row(const float* src, BFloat16* dst, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::narrow_bfloat16_avx2(src, dst, n);
#endif
  static_cast<void>(src), static_cast<void>(dst), static_cast<void>(n);
  return 0;
}

inline int64_t round_to_half(float* values, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::round_half_f16c(values, n);
#elif defined(KILN_ISA_ARM)
  if (neon()) return arm::round_half_neon(values, n);
#endif
  static_cast<void>(values), static_cast<void>(n);
  return 0;
}

}  // namespace kiln::portable::isa
