// llama::update_cache_with_indices.out: writes value [B, S, H, D] into cache [B, L, H, D] along
// dim 1, row t of batch b at position indices[b][t] (start_pos is unused). Any dtype; `out` is
// left as it is, as update_cache leaves it. Every index is checked before any row is written;
// where two name one position, the later row stays.
#include <cstring>

#include "kernels/portable/cpu/util/llm/llama_arguments.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {

Tensor& update_cache_with_indices_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                                      int64_t start_pos, const Tensor& indices, Tensor& out) {
  (void)start_pos;  // ExecuTorch's schema carries it; the indices give every position
  if (!check_cache_update_indices(ctx, value, cache, indices)) return out;
  const int64_t positions = value.size(1);
  const size_t row_bytes = value.size(2) * value.size(3) * value.element_size();
  const int64_t* index = indices.const_data_ptr<int64_t>();
  const char* src = static_cast<const char*>(value.const_data_ptr());
  char* dst = static_cast<char*>(cache.mutable_data_ptr());
  for (int64_t b = 0; b < value.size(0); ++b) {
    for (int64_t t = 0; t < positions; ++t) {
      std::memmove(dst + (b * cache.size(1) + index[b * positions + t]) * row_bytes,
                   src + (b * positions + t) * row_bytes, row_bytes);
    }
  }
  return out;
}

}  // namespace kiln::portable::native
