// Lists what the static initialiser registered; calls no registration function itself.
#include <cstdio>

#include "runtime/kernel/operator_registry.h"

int main() {
  for (size_t i = 0; i < kiln::registered_kernel_count(); ++i) {
    std::printf("%s\n", kiln::registered_kernel(i).name);
  }
  return kiln::registered_kernel_count() == 2 ? 0 : 1;
}
