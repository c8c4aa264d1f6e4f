// im2col_tiling: column rows split over cores, with as many output rows per UB tile as 2 input
// and 2 output buffers hold.
#include "kernels/ascend/op_conv/conv_tiling.h"

namespace kiln::ascend {
namespace {

constexpr size_t kSlackBytes = 1024;  // 32-byte rounding of the buffers

// Bytes of UB per output row of a tile: 2 input and 2 output buffers.
size_t bytes_per_segment(const WindowLayout& w, size_t size) { return 4 * w.segment_pitch * size; }

}  // namespace

bool im2col_fits(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes) {
  const size_t size = device_element_size(dtype);
  const WindowLayout w = window_layout(c.window, size);
  return window_layout_fits(w, size) && bytes_per_segment(w, size) + kSlackBytes <= ub_bytes;
}

Im2colTiling im2col_tiling(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes,
                           uint32_t cores) {
  const size_t size = device_element_size(dtype);
  Im2colTiling t{};
  t.window = window_layout(c.window, size);
  t.dtype = static_cast<uint32_t>(dtype);
  t.bias = c.bias ? 1 : 0;
  t.taps = static_cast<uint32_t>(c.window.kernel[0] * c.window.kernel[1]);
  t.reduce = static_cast<uint32_t>(c.in_per_group * t.taps + (c.bias ? 1 : 0));
  t.rows = c.batch * c.groups * t.reduce;
  t.in_channels = static_cast<uint32_t>(c.in_per_group * c.groups);
  t.in_per_group = static_cast<uint32_t>(c.in_per_group);
  t.groups = static_cast<uint32_t>(c.groups);
  uint64_t segments = (ub_bytes - kSlackBytes) / bytes_per_segment(t.window, size);
  if (segments > c.window.out_h) segments = c.window.out_h;
  if (segments > kWindowMaxRuns) segments = kWindowMaxRuns;
  t.tile_segments = static_cast<uint32_t>(segments);
  // Cores get whole column rows, at least 4096 elements each.
  const uint64_t row_elems = c.window.out_h * t.window.segment_pitch;
  uint64_t blocks = (t.rows * row_elems + 4095) / 4096;
  if (blocks > cores) blocks = cores;
  if (blocks > t.rows) blocks = t.rows;
  if (blocks == 0) blocks = 1;
  t.block_rows = (t.rows + blocks - 1) / blocks;
  t.block_dim = static_cast<uint32_t>((t.rows + t.block_rows - 1) / t.block_rows);
  return t;
}

}  // namespace kiln::ascend
