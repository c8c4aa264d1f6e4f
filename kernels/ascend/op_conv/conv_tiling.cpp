// im2col_tiling: the staged input's pitches, and column rows split over cores with as many
// output rows per UB tile as 2 input and 2 output buffers hold.
#include "kernels/ascend/op_conv/conv_tiling.h"

namespace kiln::ascend {
namespace {

constexpr uint64_t kMaxBlocks = 65535;  // DataCopyParams' 16-bit strides and lengths
constexpr uint64_t kMaxBlockCount = 4095;
constexpr size_t kSlackBytes = 1024;  // 32-byte rounding of the buffers

uint64_t segment_pitch(const ConvGeometry& c, size_t size) {
  return align_up(c.out_w, elements_per_block(size));
}

uint64_t phase_pitch(const ConvGeometry& c, size_t size) {
  const uint64_t padded_w = c.in_w + 2 * c.padding[1];
  return align_up((padded_w + c.stride[1] - 1) / c.stride[1], elements_per_block(size));
}

}  // namespace

bool im2col_fits(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes) {
  const size_t size = device_element_size(dtype);
  const uint64_t segment_bytes = segment_pitch(c, size) * size;
  const uint64_t row_bytes = c.stride[1] * phase_pitch(c, size) * size;
  const uint64_t gap = (c.stride[0] * row_bytes - segment_bytes) / 32;
  return 4 * segment_bytes + kSlackBytes <= ub_bytes && segment_bytes / 32 <= kMaxBlocks &&
         gap <= kMaxBlocks;
}

Im2colTiling im2col_tiling(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes,
                           uint32_t cores) {
  const size_t size = device_element_size(dtype);
  Im2colTiling t{};
  t.dtype = static_cast<uint32_t>(dtype);
  t.bias = c.bias ? 1 : 0;
  t.taps = static_cast<uint32_t>(c.kernel[0] * c.kernel[1]);
  t.reduce = static_cast<uint32_t>(c.in_per_group * t.taps + (c.bias ? 1 : 0));
  t.rows = c.batch * c.groups * t.reduce;
  t.in_channels = static_cast<uint32_t>(c.in_per_group * c.groups);
  t.in_per_group = static_cast<uint32_t>(c.in_per_group);
  t.groups = static_cast<uint32_t>(c.groups);
  t.kernel_w = static_cast<uint32_t>(c.kernel[1]);
  t.padded_h = static_cast<uint32_t>(c.in_h + 2 * c.padding[0]);
  t.phase_pitch = static_cast<uint32_t>(phase_pitch(c, size));
  t.row_pitch = c.stride[1] * t.phase_pitch;
  t.stride_h = static_cast<uint32_t>(c.stride[0]);
  t.stride_w = static_cast<uint32_t>(c.stride[1]);
  t.dilation_h = static_cast<uint32_t>(c.dilation[0]);
  t.dilation_w = static_cast<uint32_t>(c.dilation[1]);
  t.out_h = static_cast<uint32_t>(c.out_h);
  t.segment_pitch = static_cast<uint32_t>(segment_pitch(c, size));
  t.staged_elems = c.batch * t.in_channels * t.padded_h * t.row_pitch + t.segment_pitch;
  t.gap_blocks = static_cast<uint32_t>((c.stride[0] * t.row_pitch - t.segment_pitch) * size / 32);
  uint64_t segments = (ub_bytes - kSlackBytes) / (4 * uint64_t{t.segment_pitch} * size);
  if (segments > c.out_h) segments = c.out_h;
  if (segments > kMaxBlockCount) segments = kMaxBlockCount;
  t.tile_segments = static_cast<uint32_t>(segments);
  // Cores get whole rows, at least 4096 column elements each.
  const uint64_t row_elems = uint64_t{t.out_h} * t.segment_pitch;
  uint64_t blocks = (t.rows * row_elems + 4095) / 4096;
  if (blocks > cores) blocks = cores;
  if (blocks > t.rows) blocks = t.rows;
  if (blocks == 0) blocks = 1;
  t.block_rows = (t.rows + blocks - 1) / blocks;
  t.block_dim = static_cast<uint32_t>((t.rows + t.block_rows - 1) / t.block_rows);
  return t;
}

}  // namespace kiln::ascend
