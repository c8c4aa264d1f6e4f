// x86-64 CPU feature levels, asked of the CPU (isa/level.h caps them for the kernels).
#pragma once

namespace kiln::portable::isa::x86 {

// x86-64-v3: AVX2, FMA, F16C, BMI, LZCNT, MOVBE.
bool cpu_is_x86_64_v3();
// x86-64-v4: x86-64-v3 and AVX-512 (F, BW, CD, DQ, VL).
bool cpu_is_x86_64_v4();
// AVX-512 VNNI (vpdpbusd), which x86-64-v4 does not include.
bool cpu_has_avx512_vnni();

}  // namespace kiln::portable::isa::x86
