// quantize_tiling: the staging mode, the rows and their split over cores and UB tiles.
#include "kernels/ascend/op_quantize/quantize_tiling.h"

namespace kiln::ascend {
namespace {

// A core's share is at least this many elements, and so is a row split off a longer run.
constexpr uint64_t kMinRowElems = 4096;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Rows (of at least kMinRowElems elements) to split `length` elements into so that `groups`
// such lengths give every core a row.
uint64_t spread(uint64_t length, uint64_t groups, uint32_t cores) {
  uint64_t rows = ceil_div(cores, groups);
  if (rows > length / kMinRowElems) rows = length / kMinRowElems;
  return rows == 0 ? 1 : rows;
}

}  // namespace

QuantizeTiling quantize_tiling(AffineDirection direction, DeviceDtype float_dtype,
                               QuantDtype quant_dtype, AffineShape shape, size_t ub_bytes,
                               uint32_t cores) {
  if (shape.channels == 1) shape = {1, 1, shape.outer * shape.inner};
  const size_t float_size = device_element_size(float_dtype);
  const size_t quant_size = quant_element_size(quant_dtype);
  RowUbCosts costs{};
  // Double-buffered input and output tiles, the float / int32 work tile, a mask bit per
  // element (a byte counted), and for 1-byte dequantized input a half / float scratch tile.
  costs.per_tile_element = 2 * float_size + 2 * quant_size + sizeof(float) + 1;
  if (direction == AffineDirection::Dequantize && quant_size == 1) {
    costs.per_tile_element += sizeof(float);
  }
  costs.per_chunk_element = costs.per_tile_element;
  costs.fixed = 1024;

  QuantizeTiling tiling{};
  tiling.direction = static_cast<uint32_t>(direction);
  tiling.float_dtype = static_cast<uint32_t>(float_dtype);
  tiling.quant_dtype = static_cast<uint32_t>(quant_dtype);
  tiling.outer = shape.outer;
  tiling.channels = shape.channels;
  tiling.inner = shape.inner;
  tiling.parts = 1;
  tiling.chunks = 1;
  uint64_t rows = 0;
  uint64_t pitch = 0;
  if (shape.channels > 1 && shape.inner < kAffineColumnInner) {
    tiling.column_mode = 1;
    // The chunk's parameter planes stay in UB beside at least one row's tiles.
    costs.per_row_element = kAffineParamWords * sizeof(uint32_t);
    const uint64_t columns = shape.channels * shape.inner;
    uint64_t fit = (ub_bytes - costs.fixed) / (costs.per_tile_element + costs.per_row_element);
    fit = fit / kAffineRowAlign * kAffineRowAlign;
    if (fit < kAffineRowAlign) fit = kAffineRowAlign;
    uint64_t chunks = ceil_div(columns, fit);
    const uint64_t wanted = spread(columns, shape.outer, cores);
    if (chunks < wanted) chunks = wanted;
    pitch = align_up(ceil_div(columns, chunks), kAffineRowAlign);
    chunks = ceil_div(columns, pitch);
    tiling.columns = columns;
    tiling.chunks = chunks;
    rows = chunks * shape.outer;
  } else {
    const uint64_t runs = shape.outer * shape.channels;
    const uint64_t parts = spread(shape.inner, runs, cores);
    pitch = align_up(ceil_div(shape.inner, parts), kAffineRowAlign);
    tiling.parts = ceil_div(shape.inner, pitch);
    rows = runs * tiling.parts;
  }
  // Rows are whole 64-element multiples already, so the split keeps them as they are.
  tiling.split = split_rows(rows, pitch, 1, costs, ub_bytes, cores);
  return tiling;
}

}  // namespace kiln::ascend
