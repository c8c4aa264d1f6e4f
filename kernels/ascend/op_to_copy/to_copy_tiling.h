// Tiling of the dtype-converting copy (_to_copy): a POD the host fills with to_copy_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

struct ToCopyTiling {
  uint32_t src_dtype;  // DeviceDtype
  uint32_t dst_dtype;  // DeviceDtype
  // Whether NaN, +-inf and floats outside int32's range become INT32_MIN when converted to
  // int32 (x86 hosts, as torch's CPU conversion gives there) rather than saturating with NaN
  // to 0 (other hosts, and the vector unit's Cast).
  uint32_t invalid_to_int_min;
  uint32_t tile_elems;   // per UB tile, whole repeats of both dtypes
  uint64_t total;        // elements, padded to whole 256-byte repeats of the narrower dtype
  uint64_t block_elems;  // per core
  uint32_t block_dim;
  uint32_t reserved;
};

// Pure: the split of `count` elements converted from `src` to `dst` on a device with
// `ub_bytes` of UB per core and `cores` vector cores.
ToCopyTiling to_copy_tiling(DeviceDtype src, DeviceDtype dst, bool invalid_to_int_min,
                            uint64_t count, size_t ub_bytes, uint32_t cores);

// Whether converting src to dst goes through a float scratch tile (no single Cast does it).
constexpr bool to_copy_needs_float(DeviceDtype src, DeviceDtype dst) {
  if (src == dst || dst == DeviceDtype::Float) return false;
  if (src == DeviceDtype::Float) return false;
  return true;
}

}  // namespace kiln::ascend
