// ATen mode: kiln::rotary_embedding.out with libtorch's ops (vLLM's rotation in float, NeoX or
// GPT-J pairs, rounded once), under the name custom_ops.yaml binds.
#include <ATen/ATen.h>

#include <optional>
#include <tuple>

#include "kernels/aten/cpu/util/llm.h"

namespace kiln::portable::native {
namespace {

// x [*positions.shape, heads * head_size] of query's dtype.
bool check_heads(KernelRuntimeContext& ctx, const Tensor& x, const char* name,
                 const Tensor& positions, c10::ScalarType dtype, int64_t head_size) {
  if (!aten_kernels::check_activation(ctx, x, name) ||
      !aten_kernels::check_dtype(ctx, x, name, dtype)) {
    return false;
  }
  const int64_t rank = positions.dim();
  const bool leading = x.dim() > rank && x.sizes().slice(0, rank) == positions.sizes();
  KILN_KERNEL_CHECK_MSG(ctx, leading, InvalidArgument, false,
                        "%s has shape %s but positions has shape %s", name,
                        c10::str(x.sizes()).c_str(), c10::str(positions.sizes()).c_str());
  int64_t per_token = 1;
  for (int64_t d = rank; d < x.dim(); ++d) per_token *= x.size(d);
  KILN_KERNEL_CHECK_MSG(ctx, per_token % head_size == 0, InvalidArgument, false,
                        "%s has %lld elements per token, not a multiple of head_size %lld", name,
                        static_cast<long long>(per_token), static_cast<long long>(head_size));
  return true;
}

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
  KILN_KERNEL_CHECK_MSG(ctx, head_size > 0, InvalidArgument, result,
                        "head_size must be positive, but is %lld",
                        static_cast<long long>(head_size));
  KILN_KERNEL_CHECK_MSG(ctx, positions.dim() >= 1, InvalidArgument, result,
                        "positions must have at least one dim ([num_tokens]), but is 0-dim");
  const c10::ScalarType dtype = query.scalar_type();
  if (!aten_kernels::check_index(ctx, positions, "positions", positions.dim()) ||
      !aten_kernels::check_activation(ctx, cos_sin_cache, "cos_sin_cache") ||
      !aten_kernels::check_rank(ctx, cos_sin_cache, "cos_sin_cache", 2) ||
      !check_heads(ctx, query, "query", positions, dtype, head_size) ||
      (key.has_value() && !check_heads(ctx, *key, "key", positions, dtype, head_size))) {
    return result;
  }
  const int64_t rot_dim = cos_sin_cache.size(1);
  KILN_KERNEL_CHECK_MSG(ctx, rot_dim % 2 == 0 && rot_dim <= head_size, InvalidArgument, result,
                        "cos_sin_cache's rot_dim %lld must be even and at most head_size %lld",
                        static_cast<long long>(rot_dim), static_cast<long long>(head_size));
  const at::Tensor flat = positions.reshape(-1).to(at::kLong).contiguous();
  const int64_t* p = flat.const_data_ptr<int64_t>();
  for (int64_t t = 0; t < flat.numel(); ++t) {
    KILN_KERNEL_CHECK_MSG(ctx, p[t] >= 0 && p[t] < cos_sin_cache.size(0), InvalidArgument, result,
                          "positions[%lld] = %lld is outside the cos_sin_cache's %lld positions",
                          static_cast<long long>(t), static_cast<long long>(p[t]),
                          static_cast<long long>(cos_sin_cache.size(0)));
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
