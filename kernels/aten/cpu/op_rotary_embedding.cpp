// ATen mode: kiln::rotary_embedding.out with libtorch's ops (vLLM's rotation in float, NeoX or
// GPT-J pairs, rounded once), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>
#include <tuple>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {
namespace {

at::Tensor rotate(const at::Tensor& positions, const at::Tensor& x, int64_t head_size,
                  const at::Tensor& cache, bool neox) {
  const int64_t rot = cache.size(1);
  const int64_t half = rot / 2;
  const int64_t tokens = positions.numel();
  const int64_t heads = tokens == 0 ? 0 : x.numel() / tokens / head_size;
  const at::Tensor rows = cache.to(at::kFloat).index_select(0, positions.reshape(-1).to(at::kLong));
  const at::Tensor cos = rows.narrow(1, 0, half).unsqueeze(1);
  const at::Tensor sin = rows.narrow(1, half, half).unsqueeze(1);
  const at::Tensor all = x.reshape({tokens, heads, head_size}).to(at::kFloat);
  at::Tensor rotated = all.narrow(-1, 0, rot);
  if (neox) {
    const at::Tensor x1 = rotated.narrow(-1, 0, half);
    const at::Tensor x2 = rotated.narrow(-1, half, half);
    rotated = at::cat({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1);
  } else {
    const at::Tensor x1 = rotated.slice(-1, 0, rot, 2);
    const at::Tensor x2 = rotated.slice(-1, 1, rot, 2);
    rotated = at::stack({x1 * cos - x2 * sin, x2 * cos + x1 * sin}, -1).flatten(-2);
  }
  return at::cat({rotated, all.narrow(-1, rot, head_size - rot)}, -1)
      .to(x.scalar_type())
      .reshape(x.sizes());
}

}  // namespace

std::tuple<Tensor&, Tensor&> rotary_embedding_out(KernelRuntimeContext& ctx,
                                                  const Tensor& positions, const Tensor& query,
                                                  const std::optional<Tensor>& key,
                                                  int64_t head_size, const Tensor& cos_sin_cache,
                                                  bool is_neox, Tensor& query_out,
                                                  Tensor& key_out) {
  std::tuple<Tensor&, Tensor&> result(query_out, key_out);
  HeadLayout q_layout{};
  HeadLayout k_layout{};
  if (!check_rotary_arguments(ctx, positions, query, key, head_size, cos_sin_cache, &q_layout,
                              &k_layout, /*row_views=*/true)) {
    return result;
  }
  at::Tensor q;
  at::Tensor k;
  if (!aten_kernels::run_aten(ctx, [&] {
        q = rotate(positions, query, head_size, cos_sin_cache, is_neox);
        k = key.has_value() ? rotate(positions, *key, head_size, cos_sin_cache, is_neox)
                            : at::empty({0}, query.options());
      })) {
    return result;
  }
  if (aten_kernels::store(ctx, q, query_out)) aten_kernels::store(ctx, k, key_out);
  return result;
}

}  // namespace kiln::portable::native
