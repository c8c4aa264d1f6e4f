// x86-64 CPU feature levels from the compiler's CPU model (filled before main).
#include "kernels/portable/cpu/isa/x86/cpu_features.h"

#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_X86)

namespace kiln::portable::isa::x86 {

bool cpu_is_x86_64_v3() {
#if (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 12)
  return __builtin_cpu_supports("x86-64-v3");
#else
  // Older compilers name no ISA levels here; CPUs with these also have v3's BMI, LZCNT, MOVBE.
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
#endif
}

bool cpu_is_x86_64_v4() {
#if (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 12)
  return __builtin_cpu_supports("x86-64-v4");
#else
  return cpu_is_x86_64_v3() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#endif
}

bool cpu_has_avx512_vnni() { return cpu_is_x86_64_v4() && __builtin_cpu_supports("avx512vnni"); }

}  // namespace kiln::portable::isa::x86

#endif
