// Tiling of the im2col kernel that lays a 2-d convolution's input out as matmul columns: a POD
// the host fills with im2col_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// A 2-d convolution's shape (not transposed), as torch's arguments give it.
struct ConvGeometry {
  uint64_t batch, groups, in_per_group, out_per_group;
  uint64_t in_h, in_w, out_h, out_w;
  uint64_t kernel[2], stride[2], padding[2], dilation[2];
  bool bias;
};

// The staged input: each sample and channel as padded_h rows of the zero-padded input, and each
// row split by stride[1] into phases (phase p holds columns p, p + stride, ...), phase_pitch
// elements apart. A tap's column then moves by one element per output column, so each output
// row's taps are one contiguous run of out_w elements.
//
// The columns (matmul's B), per sample and group: `reduce` rows (input channel, kernel row,
// kernel column; then a row of ones with a bias) of out_h segments of segment_pitch elements
// (out_w rounded up to 32 bytes; the matmul's extra columns are dropped on the host).
struct Im2colTiling {
  uint32_t dtype;  // DeviceDtype
  uint32_t bias;   // the last row of each group's columns is ones
  uint64_t rows;   // batch x groups x reduce
  uint32_t reduce;
  uint32_t in_channels;
  uint32_t in_per_group;
  uint32_t groups;
  uint32_t kernel_w;
  uint32_t taps;  // kernel_h x kernel_w
  uint32_t padded_h;
  uint32_t phase_pitch;
  uint64_t row_pitch;  // stride[1] x phase_pitch: elements between staged input rows
  uint32_t stride_h, stride_w, dilation_h, dilation_w;
  uint32_t out_h;
  uint32_t segment_pitch;
  uint32_t tile_segments;  // segments per UB tile
  uint32_t gap_blocks;     // 32-byte blocks between one segment's source and the next's
  uint64_t block_rows;     // per core
  uint64_t staged_elems;   // the staged input, with one segment of tail the last runs read
  uint32_t block_dim;
  uint32_t reserved;
};

// Whether the kernel can lay this convolution out: a segment fits a UB tile and the source
// strides fit DataCopy's 16-bit block counts.
bool im2col_fits(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes);

// Pure: the staged layout and the split of the column rows over `cores` vector cores.
Im2colTiling im2col_tiling(const ConvGeometry& c, DeviceDtype dtype, size_t ub_bytes,
                           uint32_t cores);

}  // namespace kiln::ascend
