// KILN_HOT_LOOP: marks a hot loop function for multiversioning (an x86-64-v3 clone with AVX2,
// F16C and FMA, chosen at load time, beside the portable baseline). Plain C++ either way.
// KILN_MATH_LOOP: the same plus an x86-64-v4 (AVX-512) clone, for loops bound by arithmetic
// (transcendental functions) rather than memory, where twice the vector width pays for the
// extra clone's bytes; memory-bound loops gain nothing from it.
#pragma once

#if defined(KILN_ENABLE_MULTIVERSIONING) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define KILN_HOT_LOOP __attribute__((target_clones("arch=x86-64-v3", "default")))
#define KILN_MATH_LOOP __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define KILN_X86_64_V3_ONLY 1
#else
#define KILN_HOT_LOOP
#define KILN_MATH_LOOP
#endif

// KILN_V3_LOOP: a loop compiled for x86-64-v3 alone, where multiversioning is on, for a caller
// that checks cpu_is_x86_64_v3() and takes another path on older CPUs: for loops whose baseline
// clone would be bytes for a rare CPU that a slower shared path serves well enough. Elsewhere
// it is a plain function and cpu_is_x86_64_v3() is true.
#if defined(KILN_X86_64_V3_ONLY)
#define KILN_V3_LOOP __attribute__((target("arch=x86-64-v3")))
#else
#define KILN_V3_LOOP
#endif

// KILN_V4_LOOP: a loop's x86-64-v4 (AVX-512) version beside its KILN_V3_LOOP one, defined only
// where multiversioning is on; callers check cpu_is_x86_64_v4() first. For loops whose AVX2
// version falls far short: the BFloat16 rows, which AVX-512 narrows in one instruction (vpmovdw)
// where AVX2 packs, permutes and blends, and the Half rows' sixteen-lane conversions.
#if defined(KILN_X86_64_V3_ONLY)
#define KILN_V4_LOOP __attribute__((target("arch=x86-64-v4")))
#endif

namespace kiln::portable {

inline bool cpu_is_x86_64_v3() {
#if !defined(KILN_X86_64_V3_ONLY)
  return true;
#elif (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 12)
  return __builtin_cpu_supports("x86-64-v3");
#else
  // Older compilers name no ISA levels here; CPUs with these also have v3's BMI, LZCNT, MOVBE.
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
#endif
}

#if defined(KILN_X86_64_V3_ONLY)
inline bool cpu_is_x86_64_v4() {
#if (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 12)
  return __builtin_cpu_supports("x86-64-v4");
#else
  return cpu_is_x86_64_v3() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#endif
}
#endif

}  // namespace kiln::portable

// KILN_UNROLL: unrolls the loop that follows completely (at most 64 iterations, a bound known at
// compile time). The kernels compile with GCC's size-growing complete unrolling capped
// (cmake/KilnCompileOptions.cmake): unrolling every short loop cost a quarter of a kernel
// binary. A loop over an array of accumulators or lanes still needs it, so that the array lives
// in registers (and the lanes become vectors) rather than in memory.
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
