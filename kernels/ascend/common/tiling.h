// Pure host-side tiling arithmetic shared by Kiln's Ascend kernels (POD in, POD out).
//
// Every kernel reads GM in whole 32-byte blocks: host wrappers pad each tensor (or each row) to
// a multiple of 32 bytes in device memory, so block and tile boundaries are 32-byte aligned and
// no DataCopy is ever truncated. This works on every SoC, with or without DataCopyPad.
// Elementwise kernels pad further, to whole 256-byte vector repeats, so every vector instruction
// (Compare and Select included) covers whole repeats.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::ascend {

// Element types of device tensors, as the tilings carry them.
enum class DeviceDtype : uint32_t { Float = 0, Half = 1, BFloat16 = 2, Int32 = 3 };

constexpr size_t device_element_size(DeviceDtype dtype) {
  return dtype == DeviceDtype::Half || dtype == DeviceDtype::BFloat16 ? 2 : 4;
}

constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Elements of `element_size` bytes in one 32-byte block.
constexpr uint64_t elements_per_block(size_t element_size) { return 32 / element_size; }

// Elements of `element_size` bytes in one 256-byte vector repeat.
constexpr uint64_t elements_per_repeat(size_t element_size) { return 256 / element_size; }

// How `count` elements, padded to whole 256-byte repeats, spread over the vector cores and,
// within a core, over UB tiles.
struct ElementwiseSplit {
  uint64_t padded;       // count rounded up to whole repeats (what device buffers hold)
  uint32_t block_dim;    // cores used (at least 1)
  uint64_t block_elems;  // elements per core, whole repeats; the last core may get fewer
  uint32_t tile_elems;   // elements per UB tile, whole repeats
};

// `bytes_per_element` is the UB a core needs per element of a tile across all its buffers (for
// example 2 input + 2 output buffers of 4-byte floats: 16). Cores get at least `min_block_elems`
// elements each, so small tensors do not pay for launching every core.
ElementwiseSplit split_elementwise(uint64_t count, size_t element_size, size_t bytes_per_element,
                                   size_t ub_bytes, uint32_t cores,
                                   uint64_t min_block_elems = 4096);

}  // namespace kiln::ascend
