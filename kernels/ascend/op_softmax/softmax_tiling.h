// Tiling of softmax / log_softmax over the last dim: a POD the host fills with softmax_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

struct SoftmaxTiling {
  uint32_t log;    // 1: log_softmax, 0: softmax
  uint32_t dtype;  // DeviceDtype of the input and of the output
  RowSplit split;
};

// Pure: the split of `rows` rows of `row_len` elements on a device with `ub_bytes` of UB per
// core and `cores` vector cores. Rows longer than a UB tile go in chunks, in three passes.
SoftmaxTiling softmax_tiling(bool log, DeviceDtype dtype, uint64_t rows, uint64_t row_len,
                             size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
