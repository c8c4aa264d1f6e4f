// The binary rows' dispatch point (util/elementwise/binary_driver.h's reduced_row): Half and
// BFloat16 rows under a cheap float op, converted inline by a loop compiled for the CPU's x86-64
// level. Each returns whether it ran the row; where it did not, the caller runs its plain path.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/isa/x86/half_rows.h"
#include "kernels/portable/cpu/isa/x86/target.h"
#include "kernels/portable/cpu/util/common/target.h"
#include "runtime/core/half.h"

namespace kiln::portable::isa {

// out[i] = op(a[i * sa], b[i * sb]) for Half a and out (strides 0 or 1), B Half or float for an
// exact scalar b (sb == 0), op a float op without rare inputs (util/vec/rare_inputs.h).
template <typename B, typename Op>
KILN_ALWAYS_INLINE bool half_row(const Half* a, int64_t sa, const B* b, int64_t sb, Half* out,
                                 int64_t n, const Op& op) {
#if defined(KILN_ISA_X86)
  const Level cpu = level();
  if (cpu == Level::kX86V4) return x86::half_row_v4(a, sa, b, sb, out, n, op), true;
  if (cpu == Level::kX86V3) return x86::half_row_v3(a, sa, b, sb, out, n, op), true;
#else
  static_cast<void>(a), static_cast<void>(sa), static_cast<void>(b), static_cast<void>(sb);
  static_cast<void>(out), static_cast<void>(n), static_cast<void>(op);
#endif
  return false;
}

// Row::run<kBytes>(args...), the plain loop of a BFloat16 row (util/elementwise/binary_driver.h),
// compiled for x86-64-v4 or x86-64-v3, whichever the CPU runs.
template <typename Row, typename... Args>
KILN_ALWAYS_INLINE bool bfloat16_row(const Args&... args) {
#if defined(KILN_ISA_X86)
  const Level cpu = level();
  if (cpu == Level::kX86V4) return x86::run_v4<Row>(args...), true;
  if (cpu == Level::kX86V3) return x86::run_v3<Row>(args...), true;
#else
  (static_cast<void>(args), ...);
#endif
  return false;
}

}  // namespace kiln::portable::isa
