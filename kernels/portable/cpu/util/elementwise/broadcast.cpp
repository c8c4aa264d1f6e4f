// Broadcast shapes and loop plans.
#include "kernels/portable/cpu/util/elementwise/broadcast.h"

#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"

namespace kiln::portable {

bool broadcast_shapes(ArrayRef<SizesType> a, ArrayRef<SizesType> b, SizesType* out_sizes,
                      size_t* out_dim) {
  const size_t dim = a.size() > b.size() ? a.size() : b.size();
  if (dim > kTensorDimensionLimit) return false;
  for (size_t i = 0; i < dim; ++i) {
    // i counts from the innermost dim; missing leading dims act as size 1.
    const SizesType sa = i < a.size() ? a[a.size() - 1 - i] : 1;
    const SizesType sb = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (sa != sb && sa != 1 && sb != 1) return false;
    out_sizes[dim - 1 - i] = sa == 1 ? sb : sa;
  }
  *out_dim = dim;
  return true;
}

bool resize_to_broadcast(KernelRuntimeContext& ctx, ArrayRef<SizesType> self,
                         ArrayRef<SizesType> other, Tensor& out) {
  SizesType sizes[kTensorDimensionLimit];
  size_t dim = 0;
  if (!broadcast_shapes(self, other, sizes, &dim)) {
    ctx.fail(Error::InvalidArgument,
             "self and other shapes %s and %s are not broadcastable: sizes must match or be 1 in "
             "each trailing dim",
             format_shape(self).text, format_shape(other).text);
    return false;
  }
  return resize_or_fail(ctx, out, {sizes, dim});
}

void make_broadcast_plan(ArrayRef<SizesType> out_sizes, const ArrayRef<SizesType>* inputs,
                         int num_inputs, BroadcastPlan* plan) {
  plan->num_inputs = num_inputs;
  plan->numel = compute_numel(out_sizes);
  // Element strides of each input per output dim, innermost first while walking.
  StridesType input_stride[kMaxPlanInputs];
  for (int i = 0; i < num_inputs; ++i) input_stride[i] = 1;

  // Build merged dims from the innermost outwards into the tail of the arrays, then shift.
  int merged = 0;
  SizesType sizes[kTensorDimensionLimit];
  StridesType strides[kMaxPlanInputs][kTensorDimensionLimit];
  const size_t out_dim = out_sizes.size();
  for (size_t k = 0; k < out_dim; ++k) {
    const size_t d = out_dim - 1 - k;
    const SizesType size = out_sizes[d];
    StridesType dim_strides[kMaxPlanInputs];
    for (int i = 0; i < num_inputs; ++i) {
      const ArrayRef<SizesType> in = inputs[i];
      const SizesType in_size = k < in.size() ? in[in.size() - 1 - k] : 1;
      dim_strides[i] = in_size == 1 ? 0 : input_stride[i];
      input_stride[i] *= in_size;
    }
    if (size == 1) continue;
    bool can_merge = merged > 0;
    for (int i = 0; i < num_inputs && can_merge; ++i) {
      // The new (outer) dim continues the previous one when its stride is that dim's extent.
      const int prev = merged - 1;
      can_merge = dim_strides[i] == strides[i][prev] * sizes[prev];
    }
    if (can_merge) {
      sizes[merged - 1] *= size;
      continue;
    }
    sizes[merged] = size;
    for (int i = 0; i < num_inputs; ++i) strides[i][merged] = dim_strides[i];
    ++merged;
  }
  if (merged == 0) {  // a single element
    sizes[0] = 1;
    for (int i = 0; i < num_inputs; ++i) strides[i][0] = 0;
    merged = 1;
  }
  // Reverse into outermost-first order.
  plan->dim = merged;
  for (int m = 0; m < merged; ++m) {
    plan->sizes[m] = sizes[merged - 1 - m];
    for (int i = 0; i < num_inputs; ++i) plan->strides[i][m] = strides[i][merged - 1 - m];
  }
}

void for_each_row_range(const BroadcastPlan& plan, int64_t begin, int64_t end, RowCallback fn,
                        const void* state) {
  if (begin >= end) return;
  const int64_t row = plan.row_size();
  const int outer = plan.dim - 1;
  int64_t offsets[kMaxPlanInputs] = {};
  int64_t index[kTensorDimensionLimit] = {};
  int64_t row_number = begin / row;
  int64_t start = begin - row_number * row;  // where the first row starts being written
  for (int d = outer - 1; d >= 0; --d) {
    index[d] = row_number % plan.sizes[d];
    row_number /= plan.sizes[d];
    for (int i = 0; i < plan.num_inputs; ++i) offsets[i] += index[d] * plan.strides[i][d];
  }
  for (int64_t out_offset = begin - start; out_offset < end; out_offset += row) {
    const int64_t stop = end - out_offset < row ? end - out_offset : row;
    int64_t row_offsets[kMaxPlanInputs];
    for (int i = 0; i < plan.num_inputs; ++i)
      row_offsets[i] = offsets[i] + start * plan.row_stride(i);
    fn(state, row_offsets, out_offset + start, stop - start);
    start = 0;
    for (int d = outer - 1; d >= 0; --d) {
      if (++index[d] < plan.sizes[d]) {
        for (int i = 0; i < plan.num_inputs; ++i) offsets[i] += plan.strides[i][d];
        break;
      }
      index[d] = 0;
      for (int i = 0; i < plan.num_inputs; ++i) {
        offsets[i] -= plan.strides[i][d] * (plan.sizes[d] - 1);
      }
    }
  }
}

void for_each_row_parallel(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                           RowCallback fn, const void* state) {
  const int64_t row = plan.row_size();
  const auto boundary = [row](int64_t at) { return at - (at % row) % 64; };
  parallel_for(ctx, 0, plan.numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for_each_row_range(plan, boundary(begin), boundary(end), fn, state);
  });
}

namespace {

// Bytes of one tiled input's buffer: k rows of L elements.
constexpr size_t kTileBytes = 4096;

// How for_each_binary_row reads one input of a short-row plan [rows, L] in tiles of k rows.
// (A single element cannot stand beside these: its plan merges into one dim.)
enum class TileInput : uint8_t {
  kWalks,   // walks both dims contiguously: read in place
  kRow,     // one row repeated ([L] against [R, L]): a buffer of k copies, filled once
  kColumn,  // one value per row ([R, 1] against [R, L]): each repeated L times, per tile
};

// Sets each input's TileInput and returns whether plan is a short-row plan worth tiling: [rows,
// L] with L <= kShortRow, inputs of those three kinds, at least one repeated row or column.
bool tile_inputs(const BroadcastPlan& plan, const BinaryOperands& operands, TileInput* inputs) {
  if (plan.num_inputs != 2 || plan.dim != 2 || plan.row_size() > kShortRow) return false;
  bool tiled = false;
  for (int i = 0; i < plan.num_inputs; ++i) {
    const StridesType outer = plan.strides[i][0];
    const StridesType inner = plan.strides[i][1];
    if (outer == plan.sizes[1] && inner == 1) {
      inputs[i] = TileInput::kWalks;
    } else if (outer == 0 && inner == 1) {
      inputs[i] = TileInput::kRow;
      tiled = true;
    } else if (outer == 1 && inner == 0) {
      inputs[i] = TileInput::kColumn;
      const size_t size = i == 0 ? operands.a_size : operands.b_size;
      if (size > 8 || (size & (size - 1)) != 0) return false;  // spread_column's sizes
      tiled = true;
    } else {
      return false;
    }
  }
  return tiled;
}

// The element at `value` (of 1, 2, 4 or 8 bytes) repeated over 8 bytes, in memory order.
uint64_t repeated_bytes(const unsigned char* value, size_t element_size) {
  uint64_t pattern = 0;
  if (element_size == 1) {
    pattern = *value;
  } else if (element_size == 2) {
    uint16_t v;
    std::memcpy(&v, value, 2);
    pattern = v;
  } else if (element_size == 4) {
    uint32_t v;
    std::memcpy(&v, value, 4);
    pattern = v;
  } else {
    std::memcpy(&pattern, value, 8);
  }
  for (size_t width = element_size; width < 8; width *= 2) pattern |= pattern << (8 * width);
  return pattern;
}

// tile = `rows` rows of `length` elements, row r holding column[r] throughout. Each row is stored
// in 8-byte words, the last one running into the next row (which overwrites it) or, for the last
// row, into the tile's slack.
void spread_column(const unsigned char* column, size_t element_size, int64_t rows, int64_t length,
                   unsigned char* tile) {
  const size_t row_bytes = element_size * static_cast<size_t>(length);
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t pattern = repeated_bytes(column + r * element_size, element_size);
    unsigned char* row = tile + r * row_bytes;
    for (size_t at = 0; at < row_bytes; at += 8) std::memcpy(row + at, &pattern, 8);
  }
}

// One input of a tiled call: where its rows start.
struct TiledInput {
  TileInput kind;
  const unsigned char* data;
  size_t element_size;
  unsigned char* tile;

  // The input's elements for rows [first, first + count) of the plan, contiguous.
  const unsigned char* rows(int64_t first, int64_t count, int64_t length) const {
    switch (kind) {
      case TileInput::kWalks:
        return data + first * length * element_size;
      case TileInput::kRow:
        return tile;
      case TileInput::kColumn:
        spread_column(data + first * element_size, element_size, count, length, tile);
        return tile;
    }
    return data;
  }
};

// for_each_binary_row's tiled loop (see elementwise/broadcast.h): calls of k rows each.
void tile_short_rows(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                     const TileInput* kinds, const BinaryOperands& operands, BinaryRowCallback fn,
                     const void* state) {
  const int64_t length = plan.row_size();
  const int64_t rows = plan.sizes[0];
  const size_t widest = operands.a_size > operands.b_size ? operands.a_size : operands.b_size;
  const int64_t per_tile =
      static_cast<int64_t>(kTileBytes / (widest * static_cast<size_t>(length)));
  const int64_t tiles = (rows + per_tile - 1) / per_tile;
  auto* out = static_cast<unsigned char*>(operands.out);
  // Whole tiles per chunk, so that every call covers the same rows on any number of threads.
  const int64_t grain = (kElementwiseGrain + per_tile * length - 1) / (per_tile * length);
  parallel_for(ctx, 0, tiles, grain, [&](int64_t first_tile, int64_t last_tile) {
    // 8 bytes of slack for spread_column's last word.
    alignas(64) unsigned char a_tile[kTileBytes + 8];
    alignas(64) unsigned char b_tile[kTileBytes + 8];
    const TiledInput a{kinds[0], static_cast<const unsigned char*>(operands.a), operands.a_size,
                       a_tile};
    const TiledInput b{kinds[1], static_cast<const unsigned char*>(operands.b), operands.b_size,
                       b_tile};
    const int64_t copies = rows < per_tile ? rows : per_tile;
    // A repeated row's buffer holds k copies of it, filled once per chunk.
    for (const TiledInput* input : {&a, &b}) {
      if (input->kind != TileInput::kRow) continue;
      const size_t row_bytes = input->element_size * static_cast<size_t>(length);
      for (int64_t k = 0; k < copies; ++k) {
        std::memcpy(input->tile + k * row_bytes, input->data, row_bytes);
      }
    }
    for (int64_t tile = first_tile; tile < last_tile; ++tile) {
      const int64_t first = tile * per_tile;
      const int64_t count = rows - first < per_tile ? rows - first : per_tile;
      fn(state, a.rows(first, count, length), 1, b.rows(first, count, length), 1,
         out + first * length * static_cast<int64_t>(operands.out_size), count * length);
    }
  });
}

// A for_each_binary_row call's callback and its state, for the rows it walks by offsets.
struct BinaryRows {
  const BroadcastPlan& plan;
  const BinaryOperands& operands;
  BinaryRowCallback fn;
  const void* state;
};

void call_with_pointers(const void* binary_rows, const int64_t* offsets, int64_t out_offset,
                        int64_t n) {
  const auto& [plan, operands, fn, state] = *static_cast<const BinaryRows*>(binary_rows);
  fn(state, static_cast<const unsigned char*>(operands.a) + offsets[0] * operands.a_size,
     plan.row_stride(0),
     static_cast<const unsigned char*>(operands.b) + offsets[1] * operands.b_size,
     plan.row_stride(1), static_cast<unsigned char*>(operands.out) + out_offset * operands.out_size,
     n);
}

}  // namespace

void for_each_binary_row(const KernelRuntimeContext& ctx, const BroadcastPlan& plan,
                         const BinaryOperands& operands, BinaryRowCallback fn, const void* state) {
  TileInput kinds[2];
  if (tile_inputs(plan, operands, kinds))
    return tile_short_rows(ctx, plan, kinds, operands, fn, state);
  const BinaryRows rows{plan, operands, fn, state};
  for_each_row_parallel(ctx, plan, &call_with_pointers, &rows);
}

}  // namespace kiln::portable
