// The row loops' dispatch point: loops over GCC vectors (util/reduce/row_loops.h's extreme_nan and
// exp-and-sum) compiled for the CPU's x86-64 level, beside the build's baseline.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/isa/x86/target.h"
#include "kernels/portable/cpu/util/common/target.h"

namespace kiln::portable::isa {

// Loop::run<kBytes>(args...), a plain loop over vectors of kBytes: compiled for x86-64-v3 with
// 32-byte vectors where the CPU runs it, else the build's own, with kBaselineBytes.
template <typename Loop, int kBaselineBytes, typename... Args>
KILN_ALWAYS_INLINE auto vector_loop(const Args&... args) {
#if defined(KILN_ISA_X86)
  if (x86_v3()) return x86::run_v3<Loop>(args...);
#endif
  return Loop::template run<kBaselineBytes>(args...);
}

}  // namespace kiln::portable::isa
