// Prints the kernels its operator library registered (statically, before main).
#include <cstdio>

#include "runtime/kernel/operator_registry.h"

int main() {
  for (size_t i = 0; i < kiln::registered_kernel_count(); ++i) {
    std::printf("%s\n", kiln::registered_kernel(i).name);
  }
  return kiln::registered_kernel_count() > 0 ? 0 : 1;
}
