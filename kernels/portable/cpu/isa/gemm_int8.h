// The int8 gemm's dispatch point (util/quantized/int8_gemm.cpp): AVX-512 VNNI's vpdpbusd where
// the CPU has it and the process runs AVX-512, else AVX2's widening multiply-adds on x86-64-v3,
// else the plain version.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/isa/x86/cpu_features.h"
#include "kernels/portable/cpu/isa/x86/gemm_int8_avx2.h"
#include "kernels/portable/cpu/isa/x86/gemm_int8_vnni.h"
#include "kernels/portable/cpu/util/quantized/int8_gemm.h"

namespace kiln::portable::isa {

enum class Int8Gemm : uint8_t { kPlain, kAvx2, kAvx512Vnni };

// The version a process runs: capped by KILN_CPU_ISA as every family is (x86-64-v3 runs AVX2's,
// baseline the plain one), so that tests run each on one machine.
inline Int8Gemm int8_gemm_version() {
#if defined(KILN_ISA_X86)
  static const bool vnni = x86::cpu_has_avx512_vnni();
  if (x86_v4() && vnni) return Int8Gemm::kAvx512Vnni;
  if (x86_v3()) return Int8Gemm::kAvx2;
#endif
  return Int8Gemm::kPlain;
}

// Runs rows [panel_begin, panel_end) of `g` on a microkernel; false where the plain version must.
inline bool int8_gemm_isa(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end) {
#if defined(KILN_ISA_X86)
  switch (int8_gemm_version()) {
    case Int8Gemm::kAvx512Vnni:
      x86::int8_gemm_avx512_vnni(g, panel_begin, panel_end);
      return true;
    case Int8Gemm::kAvx2:
      x86::int8_gemm_avx2(g, panel_begin, panel_end);
      return true;
    case Int8Gemm::kPlain:
      break;
  }
#else
  static_cast<void>(g);
  static_cast<void>(panel_begin);
  static_cast<void>(panel_end);
#endif
  return false;
}

}  // namespace kiln::portable::isa
