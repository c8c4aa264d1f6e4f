// The KV cache writes' host side (kv_cache_write.h).
#include "kernels/ascend/op_kv_cache/kv_cache_write.h"

#include <algorithm>

#include "kernels/ascend/op_kv_cache/kv_cache_kernels.h"
#include "kernels/ascend/op_kv_cache/kv_cache_tiling.h"

KILN_ASCEND_DECLARE_KERNELS(KILN_KV_CACHE)

namespace kiln::ascend {
namespace {

KILN_ASCEND_DEFINE_LAUNCH(KILN_KV_CACHE, launch_kv_cache, uint32_t, "kv_cache")

}  // namespace

void keep_last_writes(int64_t* slots, int64_t* order, int64_t count) {
  for (int64_t t = 0; t < count; ++t) order[t] = t;
  std::sort(order, order + count, [slots](int64_t a, int64_t b) {
    return slots[a] != slots[b] ? slots[a] < slots[b] : a < b;
  });
  for (int64_t i = 0; i < count; ++i) {
    const bool overridden = i + 1 < count && slots[order[i]] == slots[order[i + 1]];
    if (slots[order[i]] < 0 || overridden) slots[order[i]] = -1;
  }
}

bool write_cache_rows(KernelRuntimeContext& ctx, const void* keys, const void* values,
                      const int64_t* slots, uint64_t tokens, uint64_t row_len, size_t width,
                      uint8_t* key_cache, uint8_t* value_cache, uint64_t cache_rows) {
  const Platform device = platform();
  const KvCacheTiling tiling =
      kv_cache_tiling(tokens, row_len, cache_rows, values == nullptr ? 1 : 2, width,
                      device.ub_bytes, device.vector_cores);
  const size_t row_bytes = row_len * width;
  const size_t pitch_bytes = tiling.split.pitch * width;
  DeviceBuffer k, v;
  if (!k.upload_rows(ctx, keys, tokens, row_bytes, pitch_bytes) ||
      (values != nullptr && !v.upload_rows(ctx, values, tokens, row_bytes, pitch_bytes))) {
    return false;
  }
  // With one cache the kernel never touches the value arguments: the keys' stand in for them.
  const DeviceRows key_rows{k.get(), tiling.keys};
  const DeviceRows value_rows{values == nullptr ? k.get() : v.get(), tiling.values};
  return write_cache_images(ctx, tiling, key_rows, value_rows, slots, width, key_cache,
                            value_cache);
}

bool write_cache_images(KernelRuntimeContext& ctx, const KvCacheTiling& tiling,
                        const DeviceRows& keys, const DeviceRows& values, const int64_t* slots,
                        size_t width, uint8_t* key_cache, uint8_t* value_cache) {
  DeviceBuffer s, t;
  if (!s.upload(ctx, slots, tiling.split.rows * sizeof(int64_t)) ||
      !t.upload(ctx, &tiling, sizeof(tiling))) {
    return false;
  }
  return finish_launch(
      ctx, launch_kv_cache(static_cast<uint32_t>(width), tiling.split.block_dim, keys.data,
                           values.data, s.get(), key_cache,
                           value_cache == nullptr ? key_cache : value_cache, t.get()));
}

bool upload_cache(KernelRuntimeContext& ctx, const Tensor& cache, uint64_t row_len,
                  DeviceBuffer& device) {
  const size_t width = cache.element_size();
  const uint64_t rows = row_len == 0 ? 0 : static_cast<uint64_t>(cache.numel()) / row_len;
  return device.upload_rows(ctx, cache.const_data_ptr(), rows, row_len * width,
                            kv_cache_pitch(row_len, width) * width);
}

bool download_cache(KernelRuntimeContext& ctx, const DeviceBuffer& device, uint64_t row_len,
                    Tensor& cache) {
  const size_t width = cache.element_size();
  const uint64_t rows = row_len == 0 ? 0 : static_cast<uint64_t>(cache.numel()) / row_len;
  return device.download_rows(ctx, cache.mutable_data_ptr(), rows, row_len * width,
                              kv_cache_pitch(row_len, width) * width);
}

}  // namespace kiln::ascend
