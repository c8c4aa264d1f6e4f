// Advanced indexing plans (see index/advanced_index.h).
#include "kernels/portable/cpu/util/index/advanced_index.h"

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/elementwise/broadcast.h"

namespace kiln::portable {
namespace {

// Stores the linear positions of a mask's true elements (in temp memory) into `entry`.
bool expand_mask(KernelRuntimeContext& ctx, const Tensor& mask, IndexEntry* entry) {
  const int64_t n = mask.numel();
  const uint8_t* bytes = mask.const_data_ptr<uint8_t>();  // Bool and Byte are both one byte
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += bytes[i] != 0;
  entry->numel = count;
  entry->values = IndexReader{nullptr, true};
  if (count == 0) return true;
  Result<void*> memory = ctx.allocate_temp(static_cast<size_t>(count) * sizeof(int64_t), 8);
  KILN_KERNEL_CHECK_MSG(ctx, memory.ok(), MemoryAllocationFailed, false,
                        "a boolean index with %lld true elements needs %lld bytes of temp memory, "
                        "which the context's temp allocator could not provide",
                        static_cast<long long>(count), static_cast<long long>(count * 8));
  int64_t* positions = static_cast<int64_t*>(memory.get());
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (bytes[i] != 0) positions[j++] = i;
  }
  entry->values.data = positions;
  return true;
}

}  // namespace

bool make_advanced_index(KernelRuntimeContext& ctx, const Tensor& self,
                         ArrayRef<std::optional<Tensor>> indices, bool allow_empty,
                         AdvancedIndex* plan) {
  const int64_t rank = self.dim();
  const ArrayRef<SizesType> sizes = self.sizes();
  KILN_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(indices.size()) <= rank, InvalidArgument, false,
                        "too many indices for tensor of dimension %lld (got %zu)",
                        static_cast<long long>(rank), indices.size());
  int64_t strides[kTensorDimensionLimit];
  for (int64_t d = rank - 1, s = 1; d >= 0; --d) strides[d] = s, s *= sizes[d];
  bool indexed[kTensorDimensionLimit] = {};
  // Each entry's own shape, for broadcasting (a mask's is [number of true elements]).
  SizesType shapes[kTensorDimensionLimit][kTensorDimensionLimit];
  size_t ranks[kTensorDimensionLimit];
  int64_t pos = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i].has_value() || !indices[i]->defined()) {
      ++pos;
      continue;
    }
    const Tensor& index = *indices[i];
    const ScalarType t = index.scalar_type();
    const bool is_mask = t == ScalarType::Bool || t == ScalarType::Byte;
    KILN_KERNEL_CHECK_MSG(ctx, is_mask || t == ScalarType::Long || t == ScalarType::Int,
                          InvalidArgument, false,
                          "tensors used as indices must be long, int, byte or bool tensors (index "
                          "%zu is %s)",
                          i, to_string(t));
    if (!check_default_dim_order(ctx, index, "index")) return false;
    const int64_t covers = is_mask ? index.dim() : 1;
    if (covers == 0) {
      plan->zero_dim_mask = index.const_data_ptr<uint8_t>()[0] != 0;
      continue;
    }
    KILN_KERNEL_CHECK_MSG(ctx, pos + covers <= rank, InvalidArgument, false,
                          "too many indices for tensor of dimension %lld (index %zu reaches "
                          "dimension %lld)",
                          static_cast<long long>(rank), i,
                          static_cast<long long>(pos + covers - 1));
    IndexEntry& entry = plan->entries[plan->num_entries];
    entry.first_dim = pos;
    entry.limit = size_product(sizes, pos, pos + covers);
    entry.self_stride = strides[pos + covers - 1];
    if (is_mask) {
      for (int64_t j = 0; j < covers; ++j) {
        KILN_KERNEL_CHECK_MSG(ctx, index.size(j) == sizes[pos + j], InvalidArgument, false,
                              "The shape of the mask %s at index %lld does not match the shape of "
                              "the indexed tensor %s at index %lld",
                              format_shape(index.sizes()).text, static_cast<long long>(j),
                              format_shape(sizes).text, static_cast<long long>(pos + j));
      }
      if (!expand_mask(ctx, index, &entry)) return false;
      shapes[plan->num_entries][0] = entry.numel;
      ranks[plan->num_entries] = 1;
    } else {
      entry.values = IndexReader::of(index);
      entry.numel = index.numel();
      for (size_t j = 0; j < index.sizes().size(); ++j) {
        shapes[plan->num_entries][j] = index.sizes()[j];
      }
      ranks[plan->num_entries] = index.sizes().size();
    }
    for (int64_t j = 0; j < covers; ++j) indexed[pos + j] = true;
    pos += covers;
    ++plan->num_entries;
  }
  KILN_KERNEL_CHECK_MSG(ctx, allow_empty || plan->num_entries > 0, InvalidArgument, false,
                        "at least one index must be provided (the indices list indexes nothing)");

  // P: the entries' shapes broadcast together.
  plan->index_dim = 0;
  for (int32_t e = 0; e < plan->num_entries; ++e) {
    SizesType merged[kTensorDimensionLimit];
    size_t merged_dim = 0;
    const bool ok = broadcast_shapes({plan->index_sizes, plan->index_dim}, {shapes[e], ranks[e]},
                                     merged, &merged_dim);
    KILN_KERNEL_CHECK_MSG(ctx, ok, InvalidArgument, false,
                          "shape mismatch: indexing tensors could not be broadcast together with "
                          "shapes %s, %s",
                          format_shape({plan->index_sizes, plan->index_dim}).text,
                          format_shape({shapes[e], ranks[e]}).text);
    for (size_t j = 0; j < merged_dim; ++j) plan->index_sizes[j] = merged[j];
    plan->index_dim = merged_dim;
  }
  plan->index_numel = size_product({plan->index_sizes, plan->index_dim}, 0, plan->index_dim);
  for (int32_t e = 0; e < plan->num_entries; ++e) {
    const size_t lead = plan->index_dim - ranks[e];
    int64_t stride = 1;
    for (size_t j = ranks[e]; j-- > 0;) {
      plan->entries[e].strides[lead + j] = shapes[e][j] == 1 ? 0 : stride;
      stride *= shapes[e][j];
    }
  }

  // No value indexes an empty dim; ATen checks that here, before the loop would find it.
  for (int64_t d = 0; d < rank; ++d) {
    KILN_KERNEL_CHECK_MSG(
        ctx, !indexed[d] || sizes[d] != 0 || plan->index_numel == 0, InvalidArgument, false,
        "index is out of bounds for dimension %lld with size 0", static_cast<long long>(d));
  }

  // The loops: kept dims before the last indexed one go before P when the indexed dims are
  // adjacent, after it otherwise; the dims after the last indexed one form the inner block.
  int64_t first = rank;
  int64_t last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (indexed[d]) first = first < d ? first : d, last = d;
  }
  bool adjacent = true;
  for (int64_t d = first; d <= last; ++d) adjacent = adjacent && indexed[d];
  int32_t kept = 0;
  SizesType kept_sizes[kTensorDimensionLimit];
  int64_t kept_strides[kTensorDimensionLimit];
  for (int64_t d = 0; d < last; ++d) {
    if (!indexed[d]) kept_sizes[kept] = sizes[d], kept_strides[kept++] = strides[d];
  }
  plan->inner_dim = static_cast<size_t>(rank - 1 - last);
  plan->inner = size_product(sizes, last + 1, rank);
  plan->result_dim = static_cast<size_t>(kept) + plan->index_dim + plan->inner_dim;
  KILN_KERNEL_CHECK_MSG(ctx, plan->result_dim <= kTensorDimensionLimit, InvalidArgument, false,
                        "the indexing result would have %zu dims; tensors have at most %zu",
                        plan->result_dim, kTensorDimensionLimit);
  SizesType* loop_sizes = adjacent ? plan->outer_sizes : plan->mid_sizes;
  int64_t* loop_strides = adjacent ? plan->outer_strides : plan->mid_strides;
  (adjacent ? plan->outer_dim : plan->mid_dim) = kept;
  for (int32_t j = 0; j < kept; ++j)
    loop_sizes[j] = kept_sizes[j], loop_strides[j] = kept_strides[j];
  size_t r = 0;
  for (int32_t j = 0; j < plan->outer_dim; ++j) plan->result_sizes[r++] = plan->outer_sizes[j];
  for (size_t j = 0; j < plan->index_dim; ++j) plan->result_sizes[r++] = plan->index_sizes[j];
  for (int32_t j = 0; j < plan->mid_dim; ++j) plan->result_sizes[r++] = plan->mid_sizes[j];
  for (int64_t d = last + 1; d < rank; ++d) plan->result_sizes[r++] = sizes[d];
  plan->result_numel = size_product({plan->result_sizes, r}, 0, r);

  // Like ATen, index values are only checked when some result element reads them.
  if (plan->result_numel == 0) return true;
  for (int32_t e = 0; e < plan->num_entries; ++e) {
    const IndexEntry& entry = plan->entries[e];
    for (int64_t i = 0; i < entry.numel; ++i) {
      const int64_t v = entry.values[i];
      KILN_KERNEL_CHECK_MSG(ctx, v >= -entry.limit && v < entry.limit, InvalidArgument, false,
                            "index %lld is out of bounds for dimension %lld with size %lld",
                            static_cast<long long>(v), static_cast<long long>(entry.first_dim),
                            static_cast<long long>(entry.limit));
    }
  }
  return true;
}

}  // namespace kiln::portable
