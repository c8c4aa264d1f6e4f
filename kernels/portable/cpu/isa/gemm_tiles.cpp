// The gemm's widest tiles for this process.
#include "kernels/portable/cpu/isa/gemm_tiles.h"

#if defined(KILN_ISA_X86)

#include <cstdlib>
#include <cstring>

#include "runtime/platform/log.h"

namespace kiln::portable::isa {

GemmTiles read_gemm_tiles() {
  const GemmTiles widest = x86_v4()   ? GemmTiles::kAvx512
                           : x86_v3() ? GemmTiles::kAvx2
                                      : GemmTiles::kBaseline;
  const char* cap = std::getenv("KILN_GEMM_ISA");
  if (cap == nullptr) return widest;
  if (std::strcmp(cap, "base") == 0) return GemmTiles::kBaseline;
  if (std::strcmp(cap, "avx2") == 0) {
    return widest == GemmTiles::kAvx512 ? GemmTiles::kAvx2 : widest;
  }
  KILN_LOG(Error,
           "KILN_GEMM_ISA=%s is not a gemm ISA; set it to avx2 or base, or unset it (the gemm "
           "runs the CPU's widest tiles)",
           cap);
  return widest;
}

}  // namespace kiln::portable::isa

#endif
