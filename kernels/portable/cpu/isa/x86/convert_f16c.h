// Half and BFloat16 rows with x86-64-v3's instructions (F16C, AVX2). Each converts the first
// elements of a contiguous row and returns how many (isa/convert_rows.h).
#pragma once

#include <cstdint>

#include "runtime/core/half.h"

namespace kiln::portable::isa::x86 {

// All n, a tail of fewer than eight through a padded block, so every element rounds alike.
int64_t widen_half_f16c(const Half* src, float* dst, int64_t n);
int64_t narrow_half_f16c(const float* src, Half* dst, int64_t n);
int64_t round_half_f16c(float* values, int64_t n);
// Whole blocks of sixteen.
int64_t narrow_bfloat16_avx2(const float* src, BFloat16* dst, int64_t n);

}  // namespace kiln::portable::isa::x86
