// The int8 convolution kernels a kernel library provides (see int8_conv.h).
#include "runtime/kernel/int8_conv.h"

namespace kiln {
namespace {

// A function's static, so that providing them from another translation unit's static
// initialiser does not depend on the order in which those run.
const Int8ConvKernels*& provided() {
  static const Int8ConvKernels* kernels = nullptr;
  return kernels;
}

}  // namespace

const Int8ConvKernels* int8_conv_kernels() { return provided(); }

void provide_int8_conv_kernels(const Int8ConvKernels* kernels) { provided() = kernels; }

}  // namespace kiln
