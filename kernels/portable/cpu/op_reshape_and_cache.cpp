// kiln::reshape_and_cache and kiln::reshape_and_cache.paged_layout: write this step's keys and
// values into a paged KV cache. Token t < slot_mapping.size(0) goes to slot s = slot_mapping[t],
// that is block s / block_size, offset s % block_size; a negative slot is padding and skipped,
// and so are key and value rows past slot_mapping's (vLLM's padded batches). The default overload
// takes the flash layout (vLLM's reshape_and_cache_flash: both caches [num_blocks, block_size,
// num_kv_heads, head_size]), .paged_layout vLLM's reshape_and_cache layout (key_cache
// [num_blocks, num_kv_heads, head_size / x, block_size, x], value_cache [num_blocks,
// num_kv_heads, head_size, block_size]; arguments.h). key and value may be row views (tokens any
// stride apart, as qkv.split gives them). Every slot is checked before anything is written;
// tokens are written in order, so of tokens that share a slot the last one stays.
#include <cstring>

#include "kernels/portable/cpu/util/llm/arguments.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
namespace {

// Elements `count` apart in dst from consecutive ones in src: a paged value cache's column.
template <typename Word>
void scatter_column(const char* src, char* dst, int64_t count, int64_t stride) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * stride * sizeof(Word), src + i * sizeof(Word), sizeof(Word));
  }
}

// One kv head's key and value row of a token into its paged cache slot: the key in chunks of x
// elements, block_size * x apart; the value element by element, block_size apart.
void write_paged_head(const char* k, const char* v, char* key_cache, char* value_cache,
                      const CacheGeometry& g, int64_t block, int64_t offset, int64_t head,
                      size_t size) {
  for (int64_t d = 0; d < g.head_size; d += g.x) {
    std::memmove(key_cache + g.key_element(block, offset, head, d) * size, k + d * size,
                 g.x * size);
  }
  char* column = value_cache + g.value_element(block, offset, head, 0) * size;
  switch (size) {
    case 2:
      return scatter_column<uint16_t>(v, column, g.head_size, g.block_size);
    default:
      return scatter_column<uint32_t>(v, column, g.head_size, g.block_size);
  }
}

void write_caches(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                  Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping,
                  CacheLayout layout) {
  CacheGeometry g{};
  if (!check_reshape_and_cache_arguments(ctx, key, value, key_cache, value_cache, slot_mapping,
                                         layout, &g)) {
    return;
  }
  const int64_t tokens = slot_mapping.size(0);
  const size_t size = key_cache.element_size();
  const int64_t row = g.kv_heads * g.head_size;
  const int64_t key_stride = row_view(key).stride;
  const int64_t value_stride = row_view(value).stride;
  const char* k = static_cast<const char*>(key.const_data_ptr());
  const char* v = static_cast<const char*>(value.const_data_ptr());
  char* kc = static_cast<char*>(key_cache.mutable_data_ptr());
  char* vc = static_cast<char*>(value_cache.mutable_data_ptr());
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = index_at(slot_mapping, t);
    if (slot < 0) continue;  // padding
    const char* key_row = k + t * key_stride * size;
    const char* value_row = v + t * value_stride * size;
    const int64_t block = slot / g.block_size;
    const int64_t offset = slot % g.block_size;
    if (layout == CacheLayout::kFlash) {
      std::memmove(kc + g.key_element(block, offset, 0, 0) * size, key_row, row * size);
      std::memmove(vc + g.value_element(block, offset, 0, 0) * size, value_row, row * size);
      continue;
    }
    for (int64_t h = 0; h < g.kv_heads; ++h) {
      const int64_t first = h * g.head_size;
      write_paged_head(key_row + first * size, value_row + first * size, kc, vc, g, block, offset,
                       h, size);
    }
  }
}

}  // namespace

void reshape_and_cache(KernelRuntimeContext& ctx, const Tensor& key, const Tensor& value,
                       Tensor& key_cache, Tensor& value_cache, const Tensor& slot_mapping) {
  write_caches(ctx, key, value, key_cache, value_cache, slot_mapping, CacheLayout::kFlash);
}

void reshape_and_cache_paged_layout(KernelRuntimeContext& ctx, const Tensor& key,
                                    const Tensor& value, Tensor& key_cache, Tensor& value_cache,
                                    const Tensor& slot_mapping) {
  write_caches(ctx, key, value, key_cache, value_cache, slot_mapping, CacheLayout::kPaged);
}

}  // namespace kiln::portable::native
