// Half rows with AArch64's NEON conversions (FCVTL / FCVTN, rounding to nearest even in the
// default FPCR mode). Each converts whole blocks of four and returns how many
// (isa/convert_rows.h).
#pragma once

#include <cstdint>

#include "runtime/core/half.h"

namespace kiln::portable::isa::arm {

int64_t widen_half_neon(const Half* src, float* dst, int64_t n);
int64_t narrow_half_neon(const float* src, Half* dst, int64_t n);
int64_t round_half_neon(float* values, int64_t n);

}  // namespace kiln::portable::isa::arm
