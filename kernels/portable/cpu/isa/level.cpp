// The CPU's level, capped by KILN_CPU_ISA.
#include "kernels/portable/cpu/isa/level.h"

#if defined(KILN_ISA_X86) || defined(KILN_ISA_ARM)

#include <cstdlib>
#include <cstring>

#include "kernels/portable/cpu/isa/x86/cpu_features.h"
#include "runtime/platform/log.h"

namespace kiln::portable::isa {
namespace {

Level detected_level() {
#if defined(KILN_ISA_X86)
  if (x86::cpu_is_x86_64_v4()) return Level::kX86V4;
  if (x86::cpu_is_x86_64_v3()) return Level::kX86V3;
  return Level::kBaseline;
#else
  return Level::kNeon;
#endif
}

}  // namespace

Level read_level() {
  const Level widest = detected_level();
  const char* cap = std::getenv("KILN_CPU_ISA");
  if (cap == nullptr) return widest;
  const bool baseline = std::strcmp(cap, "baseline") == 0;
  if (baseline || std::strcmp(cap, "x86-64-v3") == 0) {
    // Said once, so that a run meant to test the plain paths shows that it did.
    KILN_LOG(Info, "KILN_CPU_ISA=%s caps the portable kernels' microkernels", cap);
    if (baseline) return Level::kBaseline;
    return widest == Level::kX86V4 ? Level::kX86V3 : widest;
  }
  KILN_LOG(Error,
           "KILN_CPU_ISA=%s is not an ISA level; set it to baseline or x86-64-v3, or unset it (the "
           "kernels run the CPU's widest microkernels)",
           cap);
  return widest;
}

}  // namespace kiln::portable::isa

#endif
