// The default random generator and set_random_seed.
#include "runtime/kernel/random_generator.h"

#if KILN_ATEN_MODE
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>

#include <mutex>
#endif

namespace kiln {
namespace {

// Constant-initialised (constexpr constructor): usable from any static initialiser.
RandomGenerator default_generator;

}  // namespace

RandomGenerator& default_random_generator() { return default_generator; }

void set_random_seed(uint64_t seed) {
  default_generator.set_seed(seed);
#if KILN_ATEN_MODE
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_current_seed(seed);
#endif
}

}  // namespace kiln
