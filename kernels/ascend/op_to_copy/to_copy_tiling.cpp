// to_copy_tiling: double-buffered source and destination tiles, float scratch where a
// conversion takes two Casts, and a mask bit per element for the int32 range fix.
#include "kernels/ascend/op_to_copy/to_copy_tiling.h"

namespace kiln::ascend {

ToCopyTiling to_copy_tiling(DeviceDtype src, DeviceDtype dst, bool invalid_to_int_min,
                            uint64_t count, size_t ub_bytes, uint32_t cores) {
  const size_t src_size = device_element_size(src);
  const size_t dst_size = device_element_size(dst);
  const size_t narrow = src_size < dst_size ? src_size : dst_size;
  const size_t per_element =
      2 * src_size + 2 * dst_size + (to_copy_needs_float(src, dst) ? sizeof(float) : 0) + 1;
  // Repeats of the narrower dtype are whole repeats of the wider one too.
  const ElementwiseSplit split = split_elementwise(count, narrow, per_element, ub_bytes, cores);
  ToCopyTiling tiling{};
  tiling.src_dtype = static_cast<uint32_t>(src);
  tiling.dst_dtype = static_cast<uint32_t>(dst);
  tiling.invalid_to_int_min = invalid_to_int_min ? 1 : 0;
  tiling.tile_elems = split.tile_elems;
  tiling.total = split.padded;
  tiling.block_elems = split.block_elems;
  tiling.block_dim = split.block_dim;
  return tiling;
}

}  // namespace kiln::ascend
