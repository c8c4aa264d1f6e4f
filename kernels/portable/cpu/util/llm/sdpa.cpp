// llama::custom_sdpa's attention and update_cache's row copies: one parallel unit per (batch,
// query row, block of query heads sharing a kv head), each through attention.h's online softmax.
#include "kernels/portable/cpu/util/llm/sdpa.h"

#include <cstring>

#include "kernels/portable/cpu/util/common/checks.h"
#include "kernels/portable/cpu/util/common/parallel.h"
#include "kernels/portable/cpu/util/llm/attention.h"
#include "kernels/portable/cpu/util/llm/common.h"
#include "runtime/core/half.h"

namespace kiln::portable {
namespace {

// One batch's kv head of a contiguous [B, L, H_kv, D] key and value.
struct ContiguousRows {
  const char* key_base;
  const char* value_base;
  ScalarType type;
  int64_t token_stride;  // H_kv * D elements
  int64_t head_size;
  int64_t first;  // element offset of (batch, position 0, kv head)

  const float* key(int64_t token, float* buffer) const { return row(key_base, token, buffer); }
  const float* value(int64_t token, float* buffer) const { return row(value_base, token, buffer); }

 private:
  const float* row(const char* base, int64_t token, float* buffer) const {
    const int64_t offset = first + token * token_stride;
    if (type == ScalarType::Float) return reinterpret_cast<const float*>(base) + offset;
    load_floats(base + offset * element_size(type), type, 1, head_size, buffer);
    return buffer;
  }
};

// Query row i's additive mask row (every head alike), or nothing.
struct MaskBias {
  const void* row;  // nullptr: no mask
  ScalarType type;

  float operator()(int64_t /*head*/, int64_t token) const {
    if (row == nullptr) return 0.0f;
    switch (type) {
      case ScalarType::Half:
        return static_cast<float>(static_cast<const Half*>(row)[token]);
      case ScalarType::BFloat16:
        return static_cast<float>(static_cast<const BFloat16*>(row)[token]);
      default:
        return static_cast<const float*>(row)[token];
    }
  }
};

}  // namespace

void run_custom_sdpa(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                     const Tensor& value, int64_t start_pos, const std::optional<Tensor>& attn_mask,
                     bool is_causal, float scale, Tensor& out) {
  const int64_t batch = query.size(0);
  const int64_t queries = query.size(1);
  const int64_t heads = query.size(2);
  const int64_t d = query.size(3);
  const int64_t positions = key.size(1);
  const int64_t kv_heads = key.size(2);
  const int64_t group = heads / kv_heads;
  const int64_t blocks_per_group = (group + kAttentionHeadBlock - 1) / kAttentionHeadBlock;
  const int64_t units_per_row = kv_heads * blocks_per_group;
  const ScalarType type = query.scalar_type();
  const size_t size = element_size(type);
  const char* q_base = static_cast<const char*>(query.const_data_ptr());
  char* out_base = static_cast<char*>(out.mutable_data_ptr());
  const char* mask_base =
      attn_mask.has_value() ? static_cast<const char*>(attn_mask->const_data_ptr()) : nullptr;
  const ScalarType mask_type = attn_mask.has_value() ? attn_mask->scalar_type() : ScalarType::Float;
  const ContiguousRows cache{static_cast<const char*>(key.const_data_ptr()),
                             static_cast<const char*>(value.const_data_ptr()),
                             key.scalar_type(),
                             kv_heads * d,
                             d,
                             0};
  const auto run_units = [&](int64_t begin, int64_t end) {
    float q[kAttentionHeadBlock * kMaxAttentionHeadSize];
    float rows[kAttentionHeadBlock * kMaxAttentionHeadSize];
    for (int64_t u = begin; u < end; ++u) {
      const int64_t row = u / units_per_row;  // b * S + i
      const int64_t b = row / queries;
      const int64_t i = row % queries;
      const int64_t g = u % units_per_row / blocks_per_group;
      const int64_t first_head = g * group + u % blocks_per_group * kAttentionHeadBlock;
      const int64_t group_end = (g + 1) * group;
      const int64_t count = group_end - first_head < kAttentionHeadBlock ? group_end - first_head
                                                                         : kAttentionHeadBlock;
      const int64_t length =
          mask_base != nullptr ? positions : (is_causal ? start_pos + i + 1 : start_pos + queries);
      const int64_t offset = (row * heads + first_head) * d;
      load_floats(q_base + offset * size, type, 1, count * d, q);
      ContiguousRows rows_of_head = cache;
      rows_of_head.first = (b * positions * kv_heads + g) * d;
      const MaskBias bias{
          mask_base == nullptr ? nullptr : mask_base + i * positions * element_size(mask_type),
          mask_type};
      attend(rows_of_head, q, count, d, length, scale, bias, rows);
      store_floats(rows, count * d, type, out_base + offset * size);
    }
  };
  parallel_for(ctx, 0, batch * queries * units_per_row, items_grain(positions * d * 2), run_units);
}

void write_cache_rows(const Tensor& value, Tensor& cache, int64_t start_pos) {
  const int64_t positions = value.size(1);
  const size_t row_bytes = value.size(2) * value.size(3) * value.element_size();
  const char* src = static_cast<const char*>(value.const_data_ptr());
  char* dst = static_cast<char*>(cache.mutable_data_ptr());
  for (int64_t b = 0; b < value.size(0); ++b) {
    // memmove: a caller may pass the cache's own rows.
    std::memmove(dst + (b * cache.size(1) + start_pos) * row_bytes, src + b * positions * row_bytes,
                 positions * row_bytes);
  }
}

}  // namespace kiln::portable
