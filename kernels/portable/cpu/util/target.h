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
#else
#define KILN_HOT_LOOP
#define KILN_MATH_LOOP
#endif

// Forces a helper into its caller, so a KILN_HOT_LOOP caller's vector clone compiles it too.
#if defined(__GNUC__) || defined(__clang__)
#define KILN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define KILN_ALWAYS_INLINE inline
#endif
