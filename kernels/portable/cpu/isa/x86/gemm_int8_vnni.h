// The int8 gemm's x86-64 microkernel for AVX-512 VNNI (isa/gemm_int8.h picks it): panels
// [panel_begin, panel_end) of an Int8GemmArgs, bit for bit the plain version's results.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/util/quantized/int8_gemm.h"

#if defined(KILN_ISA_X86)

namespace kiln::portable::isa::x86 {

// AVX-512 VNNI: vpdpbusd sums four u8 x s8 products per int32 lane.
void int8_gemm_avx512_vnni(const Int8GemmArgs& g, int64_t panel_begin, int64_t panel_end);

}  // namespace kiln::portable::isa::x86

#endif
