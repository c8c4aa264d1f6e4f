// ATen mode: llama::custom_sdpa's attention through at::scaled_dot_product_attention.
#include "kernels/aten/cpu/util/llama.h"

#include <ATen/ATen.h>

#include <limits>

namespace kiln::aten_kernels {

at::Tensor custom_sdpa(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                       int64_t start_pos, const std::optional<at::Tensor>& attn_mask,
                       bool is_causal, float scale) {
  const int64_t queries = query.size(1);
  const int64_t group = query.size(2) / key.size(2);
  // Positions attended: all of the cache with a mask, else those up to the last query's.
  const int64_t positions = attn_mask.has_value() ? key.size(1) : start_pos + queries;
  const auto heads_first = [&](const at::Tensor& t) {
    return t.narrow(1, 0, positions).to(at::kFloat).repeat_interleave(group, 2).transpose(1, 2);
  };
  at::Tensor bias;
  if (attn_mask.has_value()) {
    bias = attn_mask->to(at::kFloat);
  } else if (is_causal) {
    // Query row i sits at position start_pos + i and sees the positions up to it.
    const at::Tensor rows = at::arange(queries, query.options().dtype(at::kLong)).unsqueeze(1);
    const at::Tensor cols = at::arange(positions, query.options().dtype(at::kLong)).unsqueeze(0);
    bias = at::zeros({queries, positions}, query.options().dtype(at::kFloat))
               .masked_fill(cols > rows + start_pos, -std::numeric_limits<float>::infinity());
  }
  const at::Tensor result = at::scaled_dot_product_attention(
      query.to(at::kFloat).transpose(1, 2), heads_first(key), heads_first(value),
      bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt, 0.0, false, scale);
  return result.transpose(1, 2).to(query.scalar_type());
}

}  // namespace kiln::aten_kernels
