// Tiling of kiln::rms_norm and kiln::fused_add_rms_norm over the last dim: a POD the host fills
// with rms_norm_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

struct RmsNormTiling {
  uint32_t dtype;  // DeviceDtype of every tensor (input, residual, weight, outs)
  uint32_t fused;  // 1: the residual is added first and the sum written (fused_add_rms_norm)
  float eps;
  uint32_t reserved;
  RowSplit split;
  // Where the rows of input, out and, when fused, the residual and residual_out (the sum) lie in
  // device memory: the host's row images (row_image.h), which mirror row views.
  GmRows x;
  GmRows residual;
  GmRows y;
  GmRows sum;
};

// Pure: the split of `rows` rows of `row_len` elements on a device with `ub_bytes` of UB per
// core and `cores` vector cores. Rows that fit keep the weight in UB for the whole core; longer
// rows go in chunks (the sum of squares, then the output) with the weight streamed chunk by
// chunk. The rows' layouts in device memory are the host's to fill in.
RmsNormTiling rms_norm_tiling(DeviceDtype dtype, bool fused, float eps, uint64_t rows,
                              uint64_t row_len, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
