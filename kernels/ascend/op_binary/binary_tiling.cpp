// binary_tiling: the layout of x in device memory, where y comes from, and the unit/tile split.
#include "kernels/ascend/op_binary/binary_tiling.h"

#include <numeric>

namespace kiln::ascend {
namespace {

// Longest y pattern a core builds element by element (scalar unit) for a row broadcast whose
// rows are not whole repeats; longer ones pad every row to whole repeats instead.
constexpr uint64_t kMaxBuiltPattern = 4096;
// Cores get at least this many elements, so small tensors do not pay for launching every core.
constexpr uint64_t kMinBlockElems = 4096;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

BinaryTiling binary_tiling(BinaryOp op, DeviceDtype dtype, const BinaryShape& shape,
                           const BinaryScalars& scalars, size_t ub_bytes, uint32_t cores) {
  const uint64_t size = device_element_size(dtype);
  const uint64_t repeat = elements_per_repeat(size);
  const bool compute_float =
      dtype == DeviceDtype::BFloat16 ||
      (dtype == DeviceDtype::Half && (scalars.scale_y || (shape.pattern == BinaryPattern::Scalar &&
                                                          !scalars.scalar_exact_in_half)));
  const uint64_t compute_size = compute_float ? sizeof(float) : size;
  // UB per tile element: 2 input + 2 output buffers of x's dtype, x widened to float (the
  // result is computed in place there), and y: 2 buffers (+ widened) when it streams, one
  // compute-type tile when resident, plus a dtype tile to cast from when duplicated per row.
  const auto budget = [&](YSource source) {
    uint64_t per_element = 4 * size + (compute_float ? compute_size : 0);
    switch (source) {
      case YSource::Stream:
        per_element += 2 * size + (compute_float ? compute_size : 0);
        break;
      case YSource::Resident:
        per_element += compute_size;
        break;
      case YSource::PerRow:
        per_element += compute_size + (compute_float ? size : 0);
        break;
    }
    const uint64_t elems = ub_bytes / per_element / repeat * repeat;
    return elems < repeat ? repeat : elems;
  };

  BinaryTiling t{};
  t.op = static_cast<uint32_t>(op);
  t.dtype = static_cast<uint32_t>(dtype);
  t.pattern = static_cast<uint32_t>(shape.pattern);
  t.compute_float = compute_float ? 1 : 0;
  t.scale_y = scalars.scale_y ? 1 : 0;
  t.alpha = scalars.alpha;
  t.alpha_int = scalars.alpha_int;
  t.scalar = scalars.scalar;
  t.scalar_int = scalars.scalar_int;
  t.cols = shape.cols;
  const uint64_t total = shape.rows * shape.cols;
  bool flat = false;  // x is one long row cut into chunks (Same, Scalar)
  YSource source = YSource::Stream;
  switch (shape.pattern) {
    case BinaryPattern::Same:
    case BinaryPattern::Scalar:
      flat = true;
      source = shape.pattern == BinaryPattern::Same ? YSource::Stream : YSource::Resident;
      t.rows = 1;
      t.pitch = align_up(total, repeat);
      break;
    case BinaryPattern::Row: {
      const uint64_t resident = budget(YSource::Resident);
      const uint64_t period = std::lcm(shape.cols, repeat);
      if (shape.cols % repeat != 0 && period <= resident && period <= kMaxBuiltPattern) {
        // Rows stay packed; y repeats every `period` elements, a pattern the kernel builds.
        source = YSource::Resident;
        t.pitch = period;
        t.rows = ceil_div(total, period);
      } else {
        t.pitch = align_up(shape.cols, repeat);
        t.rows = shape.rows;
        t.pattern_from_gm = 1;
        source = t.pitch <= resident ? YSource::Resident : YSource::Stream;
      }
      break;
    }
    case BinaryPattern::Column:
      source = YSource::PerRow;
      t.pitch = align_up(shape.cols, repeat);
      t.rows = shape.rows;
      break;
  }
  t.y_source = static_cast<uint32_t>(source);
  const uint64_t tile_budget = budget(source);
  const uint64_t elems = t.rows * t.pitch;
  uint64_t blocks = ceil_div(elems, kMinBlockElems);
  if (blocks > cores) blocks = cores;
  if (blocks == 0) blocks = 1;
  if (flat) {
    // Each core's share in equal tiles, so the shares stay equal once rounded to whole tiles.
    const uint64_t share = ceil_div(t.pitch, blocks);
    t.unit_elems = align_up(ceil_div(share, ceil_div(share, tile_budget)), repeat);
  } else {
    t.unit_elems = t.pitch <= tile_budget ? t.pitch : tile_budget;
  }
  t.units_per_row = ceil_div(t.pitch, t.unit_elems);
  const uint64_t units = t.rows * t.units_per_row;
  t.block_units = ceil_div(units, blocks);
  t.block_dim = static_cast<uint32_t>(ceil_div(units, t.block_units));
  uint64_t tile_units = 1;
  if (!flat && t.units_per_row == 1) {
    tile_units = tile_budget / t.pitch;
    if (tile_units > t.block_units) tile_units = t.block_units;
  }
  t.tile_units = static_cast<uint32_t>(tile_units);
  t.tile_elems = static_cast<uint32_t>(tile_units * t.unit_elems);
  return t;
}

}  // namespace kiln::ascend
