// Kiln's XnnpackBackend delegate: runs the graphs ExecuTorch's XNNPACK partitioner lowers (float
// nodes) on Kiln's kernels, on the method's backends. Always registered (delegate.h).
#pragma once

#include "runtime/executor/delegate.h"

namespace kiln {

const Delegate& xnnpack_delegate();

}  // namespace kiln
