// How Kiln's 2-d window kernels (im2col, max pool) find a window's taps: the host stages each
// input plane padded and split into stride phases, so that one tap of a whole output row is one
// contiguous run of elements. Header-only, so each family's tiling function uses it.
//
// A plane is padded_h rows of row_pitch elements: the input with its padding around it (the
// fill value), each row split by stride_w into phases phase_pitch elements apart (phase p holds
// the padded columns p, p + stride_w, ...). Tap (kh, kw) of output (oh, ow) is padded row
// oh * stride_h + kh * dilation_h, column ow * stride_w + kw * dilation_w: in the staged row,
// phase (kw * dilation_w) % stride_w, element ow + (kw * dilation_w) / stride_w. A kernel reads
// a run of segment_pitch elements (out_w rounded up to 32 bytes) per output row; runs of
// consecutive output rows lie gap_blocks 32-byte blocks apart, one strided DataCopy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// A window over the last two dims of `planes` planes, height first, as torch's arguments give it.
struct WindowGeometry {
  uint64_t planes, in_h, in_w, out_h, out_w;
  uint64_t kernel[2], stride[2], padding[2], dilation[2];
};

struct WindowLayout {
  uint32_t padded_h;
  uint32_t phase_pitch;
  uint64_t row_pitch;  // stride_w x phase_pitch
  uint32_t segment_pitch;
  uint32_t gap_blocks;
  uint64_t staged_elems;  // every plane, plus one segment of tail the last run may read
  uint32_t stride_h, stride_w, dilation_h, dilation_w;
  uint32_t kernel_w;
  uint32_t out_h;
};

// DataCopyParams' limits: 16-bit block lengths and strides, 12-bit block counts.
constexpr uint64_t kWindowMaxBlocks = 65535;
constexpr uint32_t kWindowMaxRuns = 4095;

// The padded extent of one dim: the input and its padding, or as far as the last window
// reaches (ceil_mode windows may pass the padding).
constexpr uint64_t window_padded_extent(uint64_t in, uint64_t pad, uint64_t out, uint64_t kernel,
                                        uint64_t stride, uint64_t dilation) {
  const uint64_t reach = (out - 1) * stride + (kernel - 1) * dilation + 1;
  return in + 2 * pad > reach ? in + 2 * pad : reach;
}

// Pure: the staged layout of `g` for elements of `element_size` bytes.
inline WindowLayout window_layout(const WindowGeometry& g, size_t element_size) {
  const uint64_t block = elements_per_block(element_size);
  WindowLayout w{};
  w.padded_h = static_cast<uint32_t>(
      window_padded_extent(g.in_h, g.padding[0], g.out_h, g.kernel[0], g.stride[0], g.dilation[0]));
  const uint64_t padded_w =
      window_padded_extent(g.in_w, g.padding[1], g.out_w, g.kernel[1], g.stride[1], g.dilation[1]);
  w.phase_pitch =
      static_cast<uint32_t>(align_up((padded_w + g.stride[1] - 1) / g.stride[1], block));
  w.row_pitch = g.stride[1] * w.phase_pitch;
  w.segment_pitch = static_cast<uint32_t>(align_up(g.out_w, block));
  w.gap_blocks = static_cast<uint32_t>((g.stride[0] * w.row_pitch - w.segment_pitch) / block);
  w.staged_elems = g.planes * w.padded_h * w.row_pitch + w.segment_pitch;
  w.stride_h = static_cast<uint32_t>(g.stride[0]);
  w.stride_w = static_cast<uint32_t>(g.stride[1]);
  w.dilation_h = static_cast<uint32_t>(g.dilation[0]);
  w.dilation_w = static_cast<uint32_t>(g.dilation[1]);
  w.kernel_w = static_cast<uint32_t>(g.kernel[1]);
  w.out_h = static_cast<uint32_t>(g.out_h);
  return w;
}

// Whether DataCopyParams can express the layout's runs.
inline bool window_layout_fits(const WindowLayout& w, size_t element_size) {
  const uint64_t block = elements_per_block(element_size);
  return w.segment_pitch / block <= kWindowMaxBlocks && w.gap_blocks <= kWindowMaxBlocks;
}

}  // namespace kiln::ascend
