// ATen mode: llama::update_cache_with_indices.out with libtorch's copy_ into the cache's rows,
// in order; `out` is left as it is. The checks are the portable kernel's (llama_arguments.h).
#include <ATen/ATen.h>

#include "kernels/aten/cpu/util/llama.h"

namespace kiln::portable::native {

Tensor& update_cache_with_indices_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                                      int64_t start_pos, const Tensor& indices, Tensor& out) {
  (void)start_pos;  // the indices give every position
  if (!check_cache_update_indices(ctx, value, cache, indices)) return out;
  aten_kernels::run_aten(ctx, [&] {
    // Row by row, in order: where two indices name one position, the later one stays.
    for (int64_t b = 0; b < value.size(0); ++b) {
      for (int64_t t = 0; t < value.size(1); ++t) {
        cache[b][indices[b][t].item<int64_t>()].copy_(value[b][t]);
      }
    }
  });
  return out;
}

}  // namespace kiln::portable::native
