// Ascend emulator tests: correct kernels per API group and one broken kernel per checked rule.
// Run by tests/test_ascend_emu.py, which checks the exit code and the "N passed, M failed" line.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "tests/native/ascend_emu/harness.h"

namespace emu_test {
int passed = 0;
int failed = 0;
}  // namespace emu_test

int main(int argc, char** argv) {
  // --print-config: the SoC and seed this thread starts with (from KILN_ASCEND_SOC and
  // KILN_ASCEND_EMU_SEED), for the pytest driver.
  if (argc > 1 && std::strcmp(argv[1], "--print-config") == 0) {
    std::printf("soc=%s seed=%" PRIu64 "\n", kiln::ascend::emu::soc().name,
                kiln::ascend::emu::seed());
    return 0;
  }
  // The rule tests spell out Ascend910B's limits; they switch SoC themselves where needed.
  kiln::ascend::emu::set_soc("Ascend910B");
  emu_test::run_correct_kernel_tests();
  emu_test::run_matmul_tests();
  emu_test::run_soc_and_copy_rule_tests();
  emu_test::run_queue_rule_tests();
  emu_test::run_bounds_rule_tests();
  emu_test::run_precision_tests();
  std::printf("%d passed, %d failed\n", emu_test::passed, emu_test::failed);
  return emu_test::failed == 0 ? 0 : 1;
}
