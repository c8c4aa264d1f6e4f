// The gemm's blocks of register tiles compiled for AVX2 with FMA and for AVX-512
// (isa/gemm_tiles.h picks one). Block::run<kBytes> is util/linalg/gemm.cpp's plain block of
// tiles for vectors of kBytes.
#pragma once

#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_X86)

#include <cstdint>

#define KILN_GEMM_AVX2 __attribute__((target("avx2,fma")))
#define KILN_GEMM_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,fma")))

namespace kiln::portable::isa::x86 {

template <typename Block, typename C, typename Panels, typename Store>
KILN_GEMM_AVX2 void block_avx2(int64_t mc, int64_t nc, int64_t kc, const C* a, int64_t lda,
                               const Panels& b, C* dst, int64_t ld, const Store& store) {
  Block::template run<32>(mc, nc, kc, a, lda, b, dst, ld, store);
}

template <typename Block, typename C, typename Panels, typename Store>
KILN_GEMM_AVX512 void block_avx512(int64_t mc, int64_t nc, int64_t kc, const C* a, int64_t lda,
                                   const Panels& b, C* dst, int64_t ld, const Store& store) {
  Block::template run<64>(mc, nc, kc, a, lda, b, dst, ld, store);
}

}  // namespace kiln::portable::isa::x86

#endif
