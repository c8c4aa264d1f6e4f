// ATen mode: llama::update_cache.out with libtorch's copy_ into the cache's rows; `out`,
// ExecuTorch's placeholder, is left as it is, as the portable kernel leaves it. The checks are
// the portable kernel's (llama_arguments.h).
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llama.h"

namespace kiln::portable::native {

Tensor& update_cache_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                         int64_t start_pos, Tensor& out) {
  if (check_cache_update(ctx, value, "value", cache, "cache", start_pos)) {
    aten_kernels::run_aten(ctx, [&] { cache.narrow(1, start_pos, value.size(1)).copy_(value); });
  }
  return out;
}

}  // namespace kiln::portable::native
