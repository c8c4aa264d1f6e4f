// Tiling of the last-dim reductions (sum, mean, amax): a POD the host fills with reduce_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

enum class ReduceOp : uint32_t { Sum = 0, Mean = 1, Amax = 2 };

struct ReduceTiling {
  uint32_t op;     // ReduceOp
  uint32_t dtype;  // DeviceDtype of the input and of the output
  RowSplit split;
};

// Each row's result lands in its own 32-byte block of the output (the host keeps the first
// element), so cores never write the same bytes and every DataCopy moves whole blocks.
constexpr uint32_t kReduceOutPitchBytes = 32;

// Pure: the split of `rows` rows of `row_len` elements for `op` on a device with `ub_bytes` of
// UB per core and `cores` vector cores.
ReduceTiling reduce_tiling(ReduceOp op, DeviceDtype dtype, uint64_t rows, uint64_t row_len,
                           size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
