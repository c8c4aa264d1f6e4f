// max_pool_tiling: per tile element, the double-buffered tap and output queues, the float
// maximum, plane number and tap (16-bit dtypes), and two compare masks.
#include "kernels/ascend/op_max_pool/max_pool_tiling.h"

namespace kiln::ascend {

MaxPoolTiling max_pool_tiling(DeviceDtype dtype, uint32_t taps, uint64_t count, size_t ub_bytes,
                              uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = dtype != DeviceDtype::Float;
  // Taps in (2 buffers), maximum out (2), plane numbers out (2 float buffers), the tap's plane
  // number (float), the widened tap and maximum (16-bit dtypes), two mask bits.
  const size_t per_element =
      2 * size + 2 * size + 2 * sizeof(float) + sizeof(float) + (wide ? 2 * sizeof(float) : 0) + 1;
  const ElementwiseSplit split = split_elementwise(count, size, per_element, ub_bytes, cores);
  MaxPoolTiling tiling{};
  tiling.dtype = static_cast<uint32_t>(dtype);
  tiling.taps = taps;
  tiling.total = split.padded;
  tiling.block_elems = split.block_elems;
  tiling.block_dim = split.block_dim;
  tiling.tile_elems = split.tile_elems;
  return tiling;
}

}  // namespace kiln::ascend
