// Functions compiled for one x86-64 level, beside the plain versions compiled for the build's
// baseline; their callers check isa/level.h's x86_v3() or x86_v4() first.
//
// KILN_V3_LOOP: an x86-64-v3 (AVX2, FMA, F16C) function. KILN_V4_LOOP: an x86-64-v4 (AVX-512)
// one. run_v3 and run_v4 compile a plain loop of util/ for either level: Loop is a type with a
// static, always-inline `template <int kBytes> run(args...)`, kBytes being the vector width the
// level's registers hold (a loop written over GCC vectors of that width uses it; an auto-vectorised
// one ignores it).
#pragma once

#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_X86)

#define KILN_V3_LOOP __attribute__((target("arch=x86-64-v3")))
#define KILN_V4_LOOP __attribute__((target("arch=x86-64-v4")))

namespace kiln::portable::isa::x86 {

template <typename Loop, typename... Args>
KILN_V3_LOOP auto run_v3(const Args&... args) {
  return Loop::template run<32>(args...);
}

template <typename Loop, typename... Args>
KILN_V4_LOOP auto run_v4(const Args&... args) {
  return Loop::template run<64>(args...);
}

}  // namespace kiln::portable::isa::x86

#endif
