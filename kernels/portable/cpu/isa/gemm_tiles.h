// The gemm's dispatch point (util/linalg/gemm.cpp): its blocks of register tiles, and its dot
// products' loop, compiled for the CPU's vector width. The register tile must follow the width
// the code is compiled for (a 32-byte vector emulated on 16-byte registers spills every
// accumulator), which KILN_HOT_LOOP's clones cannot vary, so the AVX2/FMA and AVX-512 versions are
// separate functions, picked once per product with their tile shapes; elsewhere the gemm runs its
// own tiles of the build's vector width.
#pragma once

#include <cstdint>

#include "kernels/portable/cpu/isa/level.h"
#include "kernels/portable/cpu/isa/x86/gemm_tiles.h"
#include "kernels/portable/cpu/isa/x86/target.h"

namespace kiln::portable::isa {

// The widest tiles a process runs.
enum class GemmTiles : uint8_t { kBaseline, kAvx2, kAvx512 };

// The widest tiles the process's level (isa/level.h, capped by KILN_CPU_ISA) runs: so that a test
// on an AVX-512 machine runs the narrower tiles too (x86-64-v3, baseline), and a user can compare
// them.
inline GemmTiles gemm_tiles() {
  return x86_v4() ? GemmTiles::kAvx512 : x86_v3() ? GemmTiles::kAvx2 : GemmTiles::kBaseline;
}

// Whether the build's baseline tiles lack a 64-bit integer multiply (x86-64's SSE2), so that the
// gemm multiplies int64 products one at a time there.
constexpr bool kBaselineLacksInt64Multiply = kX86;

// A block of tiles: (mc, nc, kc, A, lda, B's panels, dst, ld, how tiles are stored), and the
// vector width (in bytes) it was compiled for.
template <typename C, typename Panels, typename Store>
using GemmBlockFn = void (*)(int64_t, int64_t, int64_t, const C*, int64_t, const Panels&, C*,
                             int64_t, const Store&);
template <typename C, typename Panels, typename Store>
struct GemmBlock {
  GemmBlockFn<C, Panels, Store> run;
  int vector_bytes;
};

// Block::run<kBytes>, the gemm's plain block of tiles, compiled for the widest tiles worth
// running: AVX-512's (kBytes 64) when wide_pays() says the product amortises them, else AVX2's
// (32); {nullptr, 0} where the gemm runs its own baseline tiles.
template <typename Block, typename C, typename Panels, typename Store, typename WidePays>
GemmBlock<C, Panels, Store> gemm_block(const WidePays& wide_pays) {
#if defined(KILN_ISA_X86)
  switch (gemm_tiles()) {
    case GemmTiles::kAvx512:
      if (wide_pays()) return {&x86::block_avx512<Block, C, Panels, Store>, 64};
      [[fallthrough]];
    case GemmTiles::kAvx2:
      return {&x86::block_avx2<Block, C, Panels, Store>, 32};
    case GemmTiles::kBaseline:
      break;
  }
#else
  static_cast<void>(wide_pays);
#endif
  return {nullptr, 0};
}

// Loop::run<kBytes>(args...), the dot products' loop: compiled for x86-64-v3 where the gemm runs
// wider tiles than the baseline's, else the build's own, with kBaselineBytes.
template <typename Loop, int kBaselineBytes, typename... Args>
auto dot_loop(const Args&... args) {
#if defined(KILN_ISA_X86)
  if (gemm_tiles() != GemmTiles::kBaseline) return x86::run_v3<Loop>(args...);
#endif
  return Loop::template run<kBaselineBytes>(args...);
}

}  // namespace kiln::portable::isa
