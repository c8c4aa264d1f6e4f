// unary_tiling: double-buffered input and output tiles, plus the op's float scratch and masks.
#include "kernels/ascend/op_unary/unary_tiling.h"

namespace kiln::ascend {

UnaryTiling unary_tiling(UnaryOp op, DeviceDtype dtype, uint64_t count, size_t ub_bytes,
                         uint32_t cores, const UnaryLimits& limits) {
  const size_t size = device_element_size(dtype);
  const UnaryNeeds needs = unary_needs(op);
  const bool compute_float =
      dtype == DeviceDtype::BFloat16 || (dtype == DeviceDtype::Half && needs.multi_step);
  const size_t compute_size = compute_float ? sizeof(float) : size;
  // 2 input + 2 output buffers of the dtype; a byte per element and mask (8x the bits, which
  // also covers each mask's rounding to 32 bytes); the op's scratch; 16-bit floats computing in
  // float add a float copy of the input and of the result.
  const size_t per_element =
      4 * size + needs.masks + (needs.scratch_tiles + (compute_float ? 2 : 0)) * compute_size;
  const ElementwiseSplit split = split_elementwise(count, size, per_element, ub_bytes, cores);
  UnaryTiling tiling{};
  tiling.op = static_cast<uint32_t>(op);
  tiling.dtype = static_cast<uint32_t>(dtype);
  tiling.total = split.padded;
  tiling.block_elems = split.block_elems;
  tiling.tile_elems = split.tile_elems;
  tiling.block_dim = split.block_dim;
  tiling.compute_float = compute_float ? 1 : 0;
  tiling.limits = limits;
  return tiling;
}

}  // namespace kiln::ascend
