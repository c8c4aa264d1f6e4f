// KILN_HOT_LOOP: marks a hot loop function for multiversioning (an x86-64-v3 clone with AVX2,
// F16C and FMA, chosen at load time, beside the portable baseline). Plain C++ either way: these
// are the compiler's clones, not hand-written ISA code (which lives in cpu/isa/).
// KILN_MATH_LOOP: the same plus an x86-64-v4 (AVX-512) clone, for loops bound by arithmetic
// (transcendental functions) rather than memory, where twice the vector width pays for the
// extra clone's bytes; memory-bound loops gain nothing from it.
// Both are nothing in a build without the ISA room (KILN_PORTABLE_ISA=OFF): one baseline version.
#pragma once

#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_X86)
#define KILN_HOT_LOOP __attribute__((target_clones("arch=x86-64-v3", "default")))
#define KILN_MATH_LOOP __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define KILN_HOT_LOOP
#define KILN_MATH_LOOP
#endif

// KILN_UNROLL: unrolls the loop that follows completely (at most 64 iterations, a bound known at
// compile time). The kernels compile with GCC's size-growing complete unrolling capped
// (cmake/KilnCompileOptions.cmake), which keeps kernel binaries small. A loop over an array of
// accumulators or lanes still needs it, so that the array lives in registers (and the lanes become
// vectors) rather than in memory.
#if defined(__GNUC__) || defined(__clang__)
#define KILN_UNROLL _Pragma("GCC unroll 64")
#else
#define KILN_UNROLL
#endif

// Forces a helper into its caller, so a KILN_HOT_LOOP caller's vector clone compiles it too.
// KILN_NOINLINE keeps a function out of line where copies of it in each caller would be bytes
// with no speed to show for them.
#if defined(__GNUC__) || defined(__clang__)
#define KILN_ALWAYS_INLINE inline __attribute__((always_inline))
#define KILN_NOINLINE __attribute__((noinline))
#else
#define KILN_ALWAYS_INLINE inline
#define KILN_NOINLINE
#endif
