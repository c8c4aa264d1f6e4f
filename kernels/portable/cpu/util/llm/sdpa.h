// The computations of ExecuTorch's LLM custom operators (llama::custom_sdpa, sdpa_with_kv_cache,
// update_cache) on arguments llama_arguments.h has checked, for the portable kernels.
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::portable {

// out [B, S, H, D] = attention of query [B, S, H, D] over key and value [B, L, H_kv, D], query
// head h reading kv head h / (H / H_kv). Query row i attends to positions [0, n): n = L with
// attn_mask (added to the scaled logits, row i), else start_pos + i + 1 when is_causal, else
// start_pos + S. The softmax and weighted sum run in float; out is rounded once to its dtype.
// The head size must have passed check_attention_head_size (attention.h).
void run_custom_sdpa(KernelRuntimeContext& ctx, const Tensor& query, const Tensor& key,
                     const Tensor& value, int64_t start_pos, const std::optional<Tensor>& attn_mask,
                     bool is_causal, float scale, Tensor& out);

// cache[b, start_pos + t] = value[b, t] for every batch b and position t (whole rows of heads).
void write_cache_rows(const Tensor& value, Tensor& cache, int64_t start_pos);

}  // namespace kiln::portable
