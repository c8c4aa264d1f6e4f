// The ISA room's switchboard: which CPU-specific microkernels (isa/x86/, isa/arm/) this build
// compiled, and which of them this process may run.
//
// Every family of kernels (vec/convert's 16-bit rows, the Half and BFloat16 binary rows, the
// reductions' row loops, the gemm's tiles) has its plain C++ version under util/ and one dispatch
// function here (isa/<family>.h) that runs a microkernel for the CPU or leaves the work to the
// plain version. A build configured with KILN_PORTABLE_ISA=OFF compiles no microkernel: every
// family runs its plain version. At run time, KILN_CPU_ISA=baseline in the environment keeps a
// process on the plain versions too (x86-64-v3 stops it short of AVX-512), so that tests run
// them on any machine.
#pragma once

#include <cstdint>

#if defined(KILN_PORTABLE_ISA) && defined(__x86_64__) && defined(__linux__) && \
    (defined(__GNUC__) || defined(__clang__))
// x86-64 microkernels, picked at run time; the plain versions' baseline is the build's own ISA.
#define KILN_ISA_X86 1
#elif defined(KILN_PORTABLE_ISA) && defined(__aarch64__) && defined(__ARM_NEON) && \
    (defined(__GNUC__) || defined(__clang__))
// AArch64's NEON microkernels (NEON is in every AArch64 CPU).
#define KILN_ISA_ARM 1
#endif

namespace kiln::portable::isa {

// The microkernels a process runs: none (kBaseline), NEON's, or x86-64's up to a level.
enum class Level : uint8_t { kBaseline, kNeon, kX86V3, kX86V4 };

// Whether this build compiled x86-64's microkernels (its plain versions then run on x86-64 CPUs
// older than x86-64-v3, or under KILN_CPU_ISA=baseline).
#if defined(KILN_ISA_X86)
constexpr bool kX86 = true;
#else
constexpr bool kX86 = false;
#endif

#if defined(KILN_ISA_X86) || defined(KILN_ISA_ARM)
// The CPU's level, capped by KILN_CPU_ISA (baseline or x86-64-v3; another value is logged and
// ignored): level.cpp.
Level read_level();

// read_level(), read once per process; inline, so that a dispatch costs a test of the guard.
inline Level level() {
  static const Level cpu_level = read_level();
  return cpu_level;
}
#else
inline Level level() { return Level::kBaseline; }
#endif

// Whether the x86-64-v3 (AVX2, FMA, F16C) microkernels, or the x86-64-v4 (AVX-512) ones, run.
inline bool x86_v3() { return kX86 && level() >= Level::kX86V3; }
inline bool x86_v4() { return kX86 && level() == Level::kX86V4; }
inline bool neon() { return !kX86 && level() == Level::kNeon; }

}  // namespace kiln::portable::isa
