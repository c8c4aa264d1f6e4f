// Kernel keys: the "v1/<dtype>;<dim order>|..." strings that select dtype-specialised kernels.
#pragma once

#include <cstddef>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace kiln {

// Longest key the runtime builds; longer ones (very many tensors) fail with InvalidArgument.
constexpr size_t kMaxKernelKeyLength = 512;

// Writes the key of the tensors on `stack`, in stack order, e.g. "v1/6;0,1|6;0,1". Non-tensor
// values are skipped, as ExecuTorch does. Returns InvalidArgument when `capacity` is too small.
Error build_kernel_key(Span<EValue*> stack, char* buffer, size_t capacity);

}  // namespace kiln
