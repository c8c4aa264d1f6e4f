// Picks the 16-bit rows' microkernel for the CPU (isa/level.h).
#include "kernels/portable/cpu/isa/convert_rows.h"

#include "kernels/portable/cpu/isa/arm/convert_neon.h"
#include "kernels/portable/cpu/isa/x86/convert_f16c.h"

#if defined(KILN_ISA_X86) || defined(KILN_ISA_ARM)

namespace kiln::portable::isa {

int64_t widen_row(const Half* src, float* dst, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::widen_half_f16c(src, dst, n);
#else
  if (neon()) return arm::widen_half_neon(src, dst, n);
#endif
  return 0;
}

int64_t narrow_row(const float* src, Half* dst, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::narrow_half_f16c(src, dst, n);
#else
  if (neon()) return arm::narrow_half_neon(src, dst, n);
#endif
  return 0;
}

int64_t narrow_row(const float* src, BFloat16* dst, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::narrow_bfloat16_avx2(src, dst, n);
#endif
  static_cast<void>(src), static_cast<void>(dst), static_cast<void>(n);
  return 0;
}

int64_t round_to_half(float* values, int64_t n) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::round_half_f16c(values, n);
#else
  if (neon()) return arm::round_half_neon(values, n);
#endif
  return 0;
}

}  // namespace kiln::portable::isa

#endif
