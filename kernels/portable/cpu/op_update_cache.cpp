// llama::update_cache.out: writes value [B, S, H, D] into cache [B, L, H, D] along dim 1, at
// positions start_pos..start_pos+S-1. Any dtype (the quantized KV cache writes int8 codes and
// float scales through it). `out` is ExecuTorch's placeholder result, which nothing reads: it is
// left as it is.
#include "kernels/portable/cpu/util/llm/llama_arguments.h"
#include "kernels/portable/cpu/util/llm/sdpa.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable::native {
Tensor& update_cache_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                         int64_t start_pos, Tensor& out) {
  if (check_cache_update(ctx, value, "value", cache, "cache", start_pos)) {
    write_cache_rows(value, cache, start_pos);
  }
  return out;
}

}  // namespace kiln::portable::native
