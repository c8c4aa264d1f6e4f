// Host side of the KV cache writes, shared by the ops that write rows into caches
// (reshape_and_cache, llama::update_cache, update_cache_with_indices, sdpa_with_kv_cache): the
// slots a batch of writes leaves, and one launch of the kv_cache kernel into caches that are
// already in device memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_kv_cache/kv_cache_tiling.h"
#include "runtime/core/tensor.h"

namespace kiln::ascend {

// Whether the kernel moves elements of `width` bytes (it has an entry per width).
constexpr bool kv_cache_moves_width(size_t width) {
  return width == 1 || width == 2 || width == 4 || width == 8;
}

// Of writes that share a slot only the last keeps it (its row is the one that stays when the
// writes run in order); the others, like padding (a negative slot), get -1. `order` is scratch
// for `count` entries.
void keep_last_writes(int64_t* slots, int64_t* order, int64_t count);

// Writes packed host rows into device caches with one launch: row t of `keys` (and of `values`,
// unless it is nullptr) into row slots[t] of `key_cache` (and `value_cache`). A row is `row_len`
// elements of `width` bytes (kv_cache_moves_width); the caches hold `cache_rows` rows
// kv_cache_pitch() apart. Slot -1 is skipped; the others are distinct and below cache_rows
// (keep_last_writes). On failure records it in ctx and returns false.
bool write_cache_rows(KernelRuntimeContext& ctx, const void* keys, const void* values,
                      const int64_t* slots, uint64_t tokens, uint64_t row_len, size_t width,
                      uint8_t* key_cache, uint8_t* value_cache, uint64_t cache_rows);

// New rows already in device memory: `data` laid out as `rows` says (gm_rows.h).
struct DeviceRows {
  uint8_t* data;
  GmRows rows;
};

// write_cache_rows for rows in device memory (row images of key and value, row_image.h), the
// tiling of `tokens` rows given (kv_cache_tiling, its keys and values set).
bool write_cache_images(KernelRuntimeContext& ctx, const KvCacheTiling& tiling,
                        const DeviceRows& keys, const DeviceRows& values, const int64_t* slots,
                        size_t width, uint8_t* key_cache, uint8_t* value_cache);

// `cache` into device memory as rows of `row_len` elements at kv_cache_pitch(), and back.
bool upload_cache(KernelRuntimeContext& ctx, const Tensor& cache, uint64_t row_len,
                  DeviceBuffer& device);
bool download_cache(KernelRuntimeContext& ctx, const DeviceBuffer& device, uint64_t row_len,
                    Tensor& cache);

}  // namespace kiln::ascend
