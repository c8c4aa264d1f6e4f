// unary_tiling: double-buffered input and output tiles, plus float scratch for 16-bit floats.
#include "kernels/ascend/op_unary/unary_tiling.h"

namespace kiln::ascend {

UnaryTiling unary_tiling(UnaryOp op, DeviceDtype dtype, uint64_t count, size_t ub_bytes,
                         uint32_t cores) {
  const size_t size = device_element_size(dtype);
  // 2 input + 2 output buffers of the dtype, a NaN mask bit; bfloat16 computes in float (2 float
  // scratch rows).
  const size_t per_element =
      4 * size + 1 + (dtype == DeviceDtype::BFloat16 ? 2 * sizeof(float) : 0);
  const ElementwiseSplit split = split_elementwise(count, size, per_element, ub_bytes, cores);
  return {static_cast<uint32_t>(op),
          static_cast<uint32_t>(dtype),
          split.padded,
          split.block_elems,
          split.tile_elems,
          split.block_dim};
}

}  // namespace kiln::ascend
