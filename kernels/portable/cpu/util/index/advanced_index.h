// Advanced indexing (index.Tensor, index_put): a plan of index tensors over self and its loops.
//
// The indices list holds, per self dim from the left, None (the dim is kept), an integer tensor
// (Long or Int; negative values wrap) or a Bool/Byte mask covering as many dims as it has. The
// index tensors broadcast together to the index shape P. The result is self's kept dims with P
// in place of the indexed dims when those are adjacent, else with P first (ATen's rule).
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/portable/cpu/util/index/index_reads.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// One index tensor; a mask becomes the linear positions of its true elements in the dims it
// covers (held in temp memory), which address self like one merged dim.
struct IndexEntry {
  IndexReader values;
  int64_t numel = 0;
  int64_t first_dim = 0;    // first self dim covered (for messages)
  int64_t limit = 0;        // elements of the covered dims: values must lie in [-limit, limit)
  int64_t self_stride = 0;  // self stride (elements) of the last covered dim
  int64_t strides[kTensorDimensionLimit] = {};  // over P, 0 where broadcast
};

struct AdvancedIndex {
  int32_t num_entries = 0;
  IndexEntry entries[kTensorDimensionLimit];
  size_t index_dim = 0;  // P
  SizesType index_sizes[kTensorDimensionLimit];
  int64_t index_numel = 1;
  size_t result_dim = 0;
  SizesType result_sizes[kTensorDimensionLimit];
  int64_t result_numel = 1;
  // Result order is outer dims, P, mid dims, then `inner` contiguous elements (self's dims after
  // the last indexed one, walked as one block). Strides are self's, in elements.
  int32_t outer_dim = 0;
  SizesType outer_sizes[kTensorDimensionLimit];
  int64_t outer_strides[kTensorDimensionLimit];
  int32_t mid_dim = 0;
  SizesType mid_sizes[kTensorDimensionLimit];
  int64_t mid_strides[kTensorDimensionLimit];
  size_t inner_dim = 0;  // result dims making up the inner block
  int64_t inner = 1;
  // A 0-dim Bool/Byte index indexes nothing (ATen drops it); the last one's value, -1 if none.
  int zero_dim_mask = -1;
};

// Parses `indices` against self into `plan`, checking dtypes, mask shapes, broadcasting and (when
// the result is not empty) every index value. Mask positions come from ctx.allocate_temp. False
// after ctx.fail; `op` names the operator in messages. With `allow_empty`, a list indexing nothing
// is accepted (plan.num_entries == 0).
bool make_advanced_index(KernelRuntimeContext& ctx, const Tensor& self,
                         ArrayRef<std::optional<Tensor>> indices, bool allow_empty,
                         AdvancedIndex* plan);

// Calls fn(block, self_offset) for each inner block of the result in result order: `block`
// counts blocks (the block starts at result element block * plan.inner) and self_offset is the
// self element the block starts at.
template <typename Fn>
void for_each_index_block(const AdvancedIndex& plan, Fn&& fn) {
  if (plan.result_numel == 0) return;
  int64_t outer_coord[kTensorDimensionLimit] = {};
  int64_t mid_coord[kTensorDimensionLimit] = {};
  int64_t index_coord[kTensorDimensionLimit] = {};
  int64_t entry_offsets[kTensorDimensionLimit] = {};
  int64_t block = 0;
  int64_t outer_offset = 0;
  const auto advance = [](int32_t dim, const SizesType* sizes, const int64_t* strides,
                          int64_t* coord, int64_t* offset) {
    for (int32_t d = dim - 1; d >= 0; --d) {
      if (++coord[d] < sizes[d]) {
        *offset += strides[d];
        return true;
      }
      coord[d] = 0;
      *offset -= strides[d] * (sizes[d] - 1);
    }
    return false;
  };
  do {
    for (int64_t p = 0; p < plan.index_numel; ++p) {
      int64_t index_offset = 0;
      for (int32_t e = 0; e < plan.num_entries; ++e) {
        const IndexEntry& entry = plan.entries[e];
        const int64_t v = entry.values[entry_offsets[e]];
        index_offset += (v < 0 ? v + entry.limit : v) * entry.self_stride;
      }
      int64_t mid_offset = 0;
      do {
        fn(block++, outer_offset + index_offset + mid_offset);
      } while (advance(plan.mid_dim, plan.mid_sizes, plan.mid_strides, mid_coord, &mid_offset));
      for (int32_t d = static_cast<int32_t>(plan.index_dim) - 1; d >= 0; --d) {
        if (++index_coord[d] < plan.index_sizes[d]) {
          for (int32_t e = 0; e < plan.num_entries; ++e) {
            entry_offsets[e] += plan.entries[e].strides[d];
          }
          break;
        }
        index_coord[d] = 0;
        for (int32_t e = 0; e < plan.num_entries; ++e) {
          entry_offsets[e] -= plan.entries[e].strides[d] * (plan.index_sizes[d] - 1);
        }
      }
    }
  } while (
      advance(plan.outer_dim, plan.outer_sizes, plan.outer_strides, outer_coord, &outer_offset));
}

}  // namespace kiln::portable
