// NEON's Half conversions, four at a time. Not exercised by the x86-64 test machines.
#include "kernels/portable/cpu/isa/arm/convert_neon.h"

#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_ARM)

#include <arm_neon.h>

namespace kiln::portable::isa::arm {

int64_t widen_half_neon(const Half* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint16x4_t bits = vld1_u16(reinterpret_cast<const uint16_t*>(src + i));
    vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(bits)));
  }
  return i;
}

int64_t narrow_half_neon(const float* src, Half* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float16x4_t h = vcvt_f16_f32(vld1q_f32(src + i));
    vst1_u16(reinterpret_cast<uint16_t*>(dst + i), vreinterpret_u16_f16(h));
  }
  return i;
}

int64_t round_half_neon(float* values, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1q_f32(values + i, vcvt_f32_f16(vcvt_f16_f32(vld1q_f32(values + i))));
  }
  return i;
}

}  // namespace kiln::portable::isa::arm

#endif
