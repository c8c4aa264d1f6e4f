// Host wrappers of llama::update_cache.out and update_cache_with_indices.out on Ascend: value
// [B, S, H, D] goes into cache [B, L, H, D] at positions start_pos.. or at indices[b][t], through
// the kv_cache kernel: a position is a row of H x D elements, cache row b * L + position its
// slot. Any dtype of 1, 2, 4 or 8 bytes (the quantized KV cache's int8 codes and float scales).
// The portable kernel's checks (llama_arguments.h) run first: what they refuse declines, and the
// portable kernel reports it, so a refused call writes nothing. `out` is ExecuTorch's placeholder
// result, which nothing reads: it is left as it is.
#include <cstdint>

#include "kernels/ascend/common/accept.h"
#include "kernels/ascend/common/host.h"
#include "kernels/ascend/op_kv_cache/kv_cache_write.h"
#include "kernels/portable/cpu/util/llm/llama_arguments.h"

namespace kiln::ascend {
namespace {

// value and cache in the default dim order, of a width the kernel moves.
bool accept_update(KernelRuntimeContext& ctx, const Tensor& value, const Tensor& cache) {
  const ScalarType dtype = cache.scalar_type();
  if (!kv_cache_moves_width(cache.element_size())) {
    return decline(ctx, "cache of dtype %s", to_string(dtype));
  }
  return accept_tensor(ctx, value, "value", dtype) && accept_tensor(ctx, cache, "cache", dtype);
}

// Writes value's rows (B x S of them) into the cache rows `slots` names (-1: skipped).
void update(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache, const int64_t* slots) {
  const uint64_t row_len = static_cast<uint64_t>(cache.size(2) * cache.size(3));
  DeviceBuffer device;
  if (upload_cache(ctx, cache, row_len, device) &&
      write_cache_rows(ctx, value.const_data_ptr(), nullptr, slots,
                       static_cast<uint64_t>(value.size(0) * value.size(1)), row_len,
                       cache.element_size(), device.get(), nullptr,
                       static_cast<uint64_t>(cache.size(0) * cache.size(1)))) {
    (void)download_cache(ctx, device, row_len, cache);
  }
}

// Staging for `count` slots and as many more int64 of scratch, or nullptr after declining.
int64_t* slot_memory(KernelRuntimeContext& ctx, int64_t count) {
  return static_cast<int64_t*>(
      staging_memory(ctx, 2 * static_cast<size_t>(count) * sizeof(int64_t), "the positions"));
}

}  // namespace
}  // namespace kiln::ascend

namespace kiln::ascend::native {

Tensor& update_cache_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                         int64_t start_pos, Tensor& out) {
  KernelRuntimeContext checks;
  if (!portable::check_cache_update(checks, value, "value", cache, "cache", start_pos)) {
    refused(ctx, checks);
    return out;
  }
  const int64_t batch = value.size(0), positions = value.size(1);
  if (!accept_update(ctx, value, cache) || value.numel() == 0) return out;
  int64_t* slots = slot_memory(ctx, batch * positions);
  if (slots == nullptr) return out;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < positions; ++t) {
      slots[b * positions + t] = b * cache.size(1) + start_pos + t;
    }
  }
  update(ctx, value, cache, slots);
  return out;
}

Tensor& update_cache_with_indices_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                                      int64_t start_pos, const Tensor& indices, Tensor& out) {
  (void)start_pos;  // ExecuTorch's schema carries it; the indices give every position
  KernelRuntimeContext checks;
  if (!portable::check_cache_update_indices(checks, value, cache, indices)) {
    refused(ctx, checks);
    return out;
  }
  const int64_t count = indices.numel();
  if (!accept_update(ctx, value, cache) ||
      !accept_tensor(ctx, indices, "indices", ScalarType::Long) || value.numel() == 0) {
    return out;
  }
  int64_t* slots = slot_memory(ctx, count);
  if (slots == nullptr) return out;
  const int64_t* position = indices.const_data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    slots[i] = i / value.size(1) * cache.size(1) + position[i];
  }
  // The portable kernel writes in order: of positions named twice in a batch, the later write
  // stays.
  keep_last_writes(slots, slots + count, count);
  update(ctx, value, cache, slots);
  return out;
}

}  // namespace kiln::ascend::native
