// The Ascend emulator tests' main: GoogleTest on Ascend910B, or --print-config for the pytest
// driver (tests/test_ascend_emu.py).
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "kernels/ascend/emu/emulator.h"

int main(int argc, char** argv) {
  // --print-config: the SoC and seed this thread starts with (from KILN_ASCEND_SOC and
  // KILN_ASCEND_EMU_SEED).
  if (argc > 1 && std::strcmp(argv[1], "--print-config") == 0) {
    std::printf("soc=%s seed=%" PRIu64 "\n", kiln::ascend::emu::soc().name,
                kiln::ascend::emu::seed());
    return 0;
  }
  // The rule tests spell out Ascend910B's limits; they switch SoC themselves where needed.
  kiln::ascend::emu::set_soc("Ascend910B");
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
