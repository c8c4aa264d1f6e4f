// max_pool_tiling: per tile element, the double-buffered tap and output queues, the float tap
// number (and the widened tap and maximum for 16-bit dtypes), two compare masks; output rows
// split over cores.
#include "kernels/ascend/op_max_pool/max_pool_tiling.h"

namespace kiln::ascend {
namespace {

constexpr size_t kSlackBytes = 1024;  // 32-byte rounding of the buffers

// UB bytes per element of a tile.
size_t bytes_per_element(DeviceDtype dtype) {
  const size_t size = device_element_size(dtype);
  const bool wide = dtype != DeviceDtype::Float;
  // Taps in (2 buffers), maximum out (2), tap numbers out (2 float), the tap number being
  // compared, the widened tap and maximum (16-bit dtypes), two mask bits.
  return 2 * size + 2 * size + 2 * sizeof(float) + sizeof(float) + (wide ? 2 * sizeof(float) : 0) +
         1;
}

// Elements a tile may hold; its vector length is rounded up to a float repeat, so a tile of R
// rows needs R x segment_pitch + 63 of them.
uint64_t tile_capacity(DeviceDtype dtype, size_t ub_bytes) {
  return ub_bytes > kSlackBytes ? (ub_bytes - kSlackBytes) / bytes_per_element(dtype) : 0;
}

constexpr uint64_t kRoundingElems = 63;

}  // namespace

bool max_pool_fits(const WindowGeometry& g, DeviceDtype dtype, size_t ub_bytes) {
  const size_t size = device_element_size(dtype);
  const WindowLayout w = window_layout(g, size);
  return window_layout_fits(w, size) &&
         w.segment_pitch + kRoundingElems <= tile_capacity(dtype, ub_bytes);
}

MaxPoolTiling max_pool_tiling(const WindowGeometry& g, DeviceDtype dtype, size_t ub_bytes,
                              uint32_t cores) {
  MaxPoolTiling t{};
  t.window = window_layout(g, device_element_size(dtype));
  t.dtype = static_cast<uint32_t>(dtype);
  t.taps = static_cast<uint32_t>(g.kernel[0] * g.kernel[1]);
  t.rows = g.planes * g.out_h;
  uint64_t tile_rows = (tile_capacity(dtype, ub_bytes) - kRoundingElems) / t.window.segment_pitch;
  if (tile_rows > kWindowMaxRuns) tile_rows = kWindowMaxRuns;
  // Cores get whole output rows, at least 4096 elements each.
  uint64_t blocks = (t.rows * t.window.segment_pitch + 4095) / 4096;
  if (blocks > cores) blocks = cores;
  if (blocks > t.rows) blocks = t.rows;
  if (blocks == 0) blocks = 1;
  t.block_rows = (t.rows + blocks - 1) / blocks;
  t.block_dim = static_cast<uint32_t>((t.rows + t.block_rows - 1) / t.block_rows);
  if (tile_rows > t.block_rows) tile_rows = t.block_rows;
  t.tile_rows = static_cast<uint32_t>(tile_rows);
  return t;
}

}  // namespace kiln::ascend
